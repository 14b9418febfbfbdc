"""A JSON document as text in pieces, equal to ``json.dumps`` once joined.

The analysis document of 10 M ratings is about 1.3 GB of text; ``json.dumps`` builds all of
it while the document is alive too, which was the run's peak memory (issue 16: 10 M
ratings within 8 GiB). :func:`json_pieces` encodes the top few levels of dicts key by key,
so only one section's text exists at a time. Each piece comes from ``json.dumps`` itself
(the C encoder, same number and string formatting); the dict punctuation between the
pieces is the one ``json.dumps`` writes (``", "`` / ``": "`` without ``indent``, ``","``
plus newline and ``indent`` spaces per level with it), and the text of a nested value is
indented by prefixing its line breaks, which is safe because JSON strings never hold a raw
line break.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = ["json_pieces"]

#: Lists at least this long are remembered by identity (short ones cost less to encode again
#: than to keep).
_REMEMBERED_LENGTH = 100


def json_pieces(value: Any, *, indent: int | None = None, depth: int = 4) -> Iterator[str]:
    """Pieces whose concatenation is ``json.dumps(value, indent=indent, allow_nan=False)``.

    Dicts with only ``str`` keys are split key by key down to ``depth`` levels; anything
    else (lists, scalars, dicts with other keys, whose key spelling ``json`` decides) is one
    piece. A list met again at the same level (the same object: the report shows the primary
    item's subject-model tables twice) is encoded once. The document must not change while
    the pieces are taken. Raises ``ValueError`` for a non-finite float as ``json.dumps``
    does."""
    repeated = _Repeated(value, indent, depth)
    yield from _pieces(value, indent, 0, depth, repeated)


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

    def __init__(self, value: Any, indent: int | None, depth: int) -> None:
        self.indent = indent
        self.uses: dict[tuple[int, int], int] = {}
        self.texts: dict[tuple[int, int], str] = {}
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

    def text(self, value: Any, level: int) -> str:
        key = self.key(value, level) if isinstance(value, list) else None
        if key is not None and key in self.texts:
            text = self.texts[key]
        else:
            text = json.dumps(value, indent=self.indent, allow_nan=False)
            if self.indent is not None and level:
                text = text.replace("\n", "\n" + " " * (self.indent * level))
        if key is not None and self.uses.get(key, 0) > 1:
            self.uses[key] -= 1
            self.texts[key] = text
        elif key is not None:
            self.texts.pop(key, None)
        return text


def _pieces(
    value: Any, indent: int | None, level: int, depth: int, repeated: _Repeated
) -> Iterator[str]:
    if not _is_split(value, depth):
        yield repeated.text(value, level)
        return
    if indent is None:
        opening, between, closing = "{", ", ", "}"
    else:
        inner = "\n" + " " * (indent * (level + 1))
        opening, between, closing = "{" + inner, "," + inner, "\n" + " " * (indent * level) + "}"
    yield opening
    for position, (key, item) in enumerate(value.items()):
        yield (between if position else "") + json.dumps(key) + ": "
        yield from _pieces(item, indent, level + 1, depth - 1, repeated)
    yield closing
