"""The capped read: whole bodies up to the limit, None past it, and no read beyond it.

Catches an off-by-one at the limit and a reader that drains an oversized answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import requests

from qoelab.core.capped_http import read_capped


class _Chunks:
    """A stand-in streamed response that counts the chunks taken from it."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks
        self.taken = 0

    def iter_content(self, chunk_size: int) -> Iterator[bytes]:
        for chunk in self.chunks:
            self.taken += 1
            yield chunk


def _read(fake: _Chunks, limit: int) -> bytes | None:
    return read_capped(cast(requests.Response, cast(Any, fake)), limit)


def test_a_body_of_exactly_the_limit_is_read_whole() -> None:
    assert _read(_Chunks(b"abc", b"de"), 5) == b"abcde"
    assert _read(_Chunks(), 5) == b""


def test_one_byte_over_the_limit_is_refused_and_the_rest_left_unread() -> None:
    fake = _Chunks(b"abc", b"def", b"never read")
    assert _read(fake, 5) is None
    assert fake.taken == 2
