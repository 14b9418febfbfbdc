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


def json_pieces(value: Any, *, indent: int | None = None, depth: int = 3) -> Iterator[str]:
    """Pieces whose concatenation is ``json.dumps(value, indent=indent, allow_nan=False)``.

    Dicts with only ``str`` keys are split key by key down to ``depth`` levels; anything
    else (lists, scalars, dicts with other keys, whose key spelling ``json`` decides) is one
    piece. Raises ``ValueError`` for a non-finite float as ``json.dumps`` does."""
    yield from _pieces(value, indent, 0, depth)


def _pieces(value: Any, indent: int | None, level: int, depth: int) -> Iterator[str]:
    if (
        depth <= 0
        or not isinstance(value, dict)
        or not value
        or not all(type(key) is str for key in value)
    ):
        text = json.dumps(value, indent=indent, allow_nan=False)
        if indent is not None and level:
            text = text.replace("\n", "\n" + " " * (indent * level))
        yield text
        return
    if indent is None:
        opening, between, closing = "{", ", ", "}"
    else:
        inner = "\n" + " " * (indent * (level + 1))
        opening, between, closing = "{" + inner, "," + inner, "\n" + " " * (indent * level) + "}"
    yield opening
    for position, (key, item) in enumerate(value.items()):
        yield (between if position else "") + json.dumps(key) + ": "
        yield from _pieces(item, indent, level + 1, depth - 1)
    yield closing
