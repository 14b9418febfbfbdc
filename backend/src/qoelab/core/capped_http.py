"""Bounded reads of an HTTP answer from a peer the backend does not control.

A netem agent or a steering service could answer with any amount of data; the backend
reads at most ``limit`` bytes of a streamed ``requests`` response and refuses the rest
unread (used by :mod:`qoelab.stations.agent_client` and
:mod:`qoelab.steering.status_client`).
"""

from __future__ import annotations

import requests

#: Bytes asked of the socket per read.
CHUNK_BYTES = 64 * 1024


def read_capped(response: requests.Response, limit: int) -> bytes | None:
    """The body of a ``stream=True`` response, or None as soon as it exceeds ``limit``
    bytes (nothing more is read)."""
    chunks, size = [], 0
    for chunk in response.iter_content(chunk_size=CHUNK_BYTES):
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
