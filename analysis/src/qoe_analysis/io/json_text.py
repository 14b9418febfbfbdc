"""A JSON document as UTF-8 text in pieces, for writing out without holding all of it.

The analysis document of 10 M ratings is about 1.2 GB of text; encoding it in one call
builds all of it while the document is alive too, which was the run's peak memory (issue
16: 10 M ratings within 8 GiB). :func:`json_pieces` encodes the top few levels of dicts key
by key, so only one section's text exists at a time.

Two forms of the text:

* compact (no ``indent``, the default): :func:`~qoe_analysis.io.compact_json.compact_json`
  (orjson's text);
* indented (``indent=N``): ``json.dumps(value, indent=N, allow_nan=False)``, UTF-8 encoded
  (its ASCII escapes kept); the form for reading.

Both texts parse to the same value. The analysis document holds no non-finite float
(``jsonable.json_ready`` turns NaN into None); ``json.dumps`` would refuse one, orjson
writes ``null``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from qoe_analysis.io.compact_json import OPTIONS, compact_json

__all__ = ["OPTIONS", "json_pieces"]

#: Lists at least this long are remembered by identity (short ones cost less to encode again
#: than to keep).
_REMEMBERED_LENGTH = 100

Encode = Callable[[Any, int], bytes]


def json_pieces(value: Any, *, indent: int | None = None, depth: int = 4) -> Iterator[bytes]:
    """Pieces whose concatenation is the JSON text of ``value`` in the form of the module
    doc: :func:`~qoe_analysis.io.compact_json.compact_json` without ``indent``, else
    ``json.dumps(value, indent=indent, allow_nan=False).encode()``.

    Dicts with only ``str`` keys are split key by key down to ``depth`` levels; anything
    else (lists, scalars, dicts with other keys, whose key spelling the encoder decides) is
    one piece. A list met again at the same level (the same object: the report shows the
    primary item's subject-model tables twice) is encoded once. The document must not change
    while the pieces are taken. With ``indent``, raises ``ValueError`` for a non-finite float
    as ``json.dumps`` does."""
    encode = _compact if indent is None else _indented(indent)
    repeated = _Repeated(value, encode, indent, depth)
    yield from _pieces(value, indent, 0, depth, repeated)


def _compact(value: Any, level: int) -> bytes:
    return compact_json(value)


def _indented(indent: int) -> Encode:
    def encode(value: Any, level: int) -> bytes:
        text = json.dumps(value, indent=indent, allow_nan=False)
        if level:  # a nested value's lines start at its level; JSON strings hold no raw \n
            text = text.replace("\n", "\n" + " " * (indent * level))
        return text.encode()

    return encode


def _is_split(value: Any, depth: int) -> bool:
    return (
        depth > 0
        and isinstance(value, dict)
        and bool(value)
        and all(type(key) is str for key in value)
    )


class _Repeated:
    """The long lists that are pieces more than once (by identity and, with ``indent``,
    level); each one's text is kept from its first use to its last."""

    def __init__(self, value: Any, encode: Encode, indent: int | None, depth: int) -> None:
        self.encode = encode
        self.indent = indent
        self.uses: dict[tuple[int, int], int] = {}
        self.texts: dict[tuple[int, int], bytes] = {}
        stack = [(value, 0, depth)]
        while stack:
            item, level, left = stack.pop()
            if _is_split(item, left):
                stack += [(v, level + 1, left - 1) for v in item.values()]
            elif isinstance(item, list) and len(item) >= _REMEMBERED_LENGTH:
                key = self.key(item, level)
                self.uses[key] = self.uses.get(key, 0) + 1

    def key(self, value: list[Any], level: int) -> tuple[int, int]:
        return id(value), level if self.indent is not None else 0

    def text(self, value: Any, level: int) -> bytes:
        key = self.key(value, level) if isinstance(value, list) else None
        if key is not None and key in self.texts:
            text = self.texts[key]
        else:
            text = self.encode(value, level)
        if key is not None and self.uses.get(key, 0) > 1:
            self.uses[key] -= 1
            self.texts[key] = text
        elif key is not None:
            self.texts.pop(key, None)
        return text


def _pieces(
    value: Any, indent: int | None, level: int, depth: int, repeated: _Repeated
) -> Iterator[bytes]:
    if not _is_split(value, depth):
        yield repeated.text(value, level)
        return
    if indent is None:
        opening, between, closing, colon = b"{", b",", b"}", b":"
    else:
        inner = ("\n" + " " * (indent * (level + 1))).encode()
        opening, between = b"{" + inner, b"," + inner
        closing, colon = ("\n" + " " * (indent * level) + "}").encode(), b": "
    yield opening
    for position, (key, item) in enumerate(value.items()):
        yield (between if position else b"") + repeated.encode(key, 0) + colon
        yield from _pieces(item, indent, level + 1, depth - 1, repeated)
    yield closing
