"""The API's body parsers: bounded in size (and JSON in nesting depth) before decoding.

Issue 13 (finding 3): a 100,000-deep JSON array sent to the unauthenticated login endpoint
blew Python's recursion limit inside ``json.loads`` (a 500 with a logged traceback, 50 per
0.6 s), and DRF's stock parser reads a body of any size. Here the body is read up to
``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (more → 413), and the nesting depth of the brackets
outside string literals is measured (without recursion, at C speed) before ``json.loads``
sees it (deeper than ``QOELAB_JSON_MAX_DEPTH`` → 400). No QoE Lab document nests more
than a handful of levels.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.http import QueryDict
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import FormParser, JSONParser

#: Default of ``QOELAB_JSON_MAX_DEPTH``: levels of arrays/objects a request body may nest.
DEFAULT_MAX_DEPTH = 32

#: Brackets kept, braces counted as brackets, everything else deleted.
_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class RequestTooLarge(APIException):
    """The request body exceeds the upload limit (413)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "request_too_large"


def max_body_bytes() -> int:
    """The body limit: Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MiB by default)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return int(limit) if limit is not None else 2_621_440


def too_large_message(limit: int | None = None) -> str:
    limit = max_body_bytes() if limit is None else limit
    return f"The request body is larger than {limit} bytes (DATA_UPLOAD_MAX_MEMORY_SIZE)."


def max_depth() -> int:
    return int(getattr(settings, "QOELAB_JSON_MAX_DEPTH", DEFAULT_MAX_DEPTH))


def nesting_depth(body: bytes, limit: int) -> int:
    """The deepest nesting of arrays/objects in ``body``; ``limit + 1`` for anything deeper.

    Brackets inside string literals do not count. Every step runs at C speed (bytes
    methods, no per-character Python loop; at most ``limit`` passes over the brackets): escape
    sequences go (``\\\\`` pairs first, then ``\\"``), the odd pieces between quotes
    are the strings' contents, and each pass over the bracket sequence removes the
    innermost pairs, so the number of passes is the depth. Malformed JSON gets some
    number; the decoder reports its real error afterwards.
    """
    unescaped = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside_strings = b"".join(unescaped.split(b'"')[::2])
    brackets = outside_strings.translate(_AS_BRACKETS, _NOT_BRACKETS)
    depth = 0
    while b"[]" in brackets:
        # After ``depth`` passes, a run of n opens means a nesting of ``depth + n``: a
        # 100,000-deep body is refused at the first look instead of after ``limit`` passes.
        if depth == limit or b"[" * (limit + 1 - depth) in brackets:
            return limit + 1
        brackets = brackets.replace(b"[]", b"")
        depth += 1
    # Unbalanced leftovers (``]]…[[``): the opens still count towards the depth.
    return min(depth + brackets.count(b"["), limit + 1)


def read_limited(stream: Any, limit: int) -> bytes:
    """Read the whole body, refusing one longer than ``limit`` bytes (after at most
    ``limit + 1`` bytes: an oversized body is never held in memory)."""
    body: bytes = stream.read(limit + 1) if stream is not None else b""
    if len(body) > limit:
        raise RequestTooLarge(too_large_message(limit))
    return body


def read_body(stream: Any, parser_context: Any) -> bytes:
    """The body within the limit; a declared ``Content-Length`` over it is refused unread."""
    limit = max_body_bytes()
    request = (parser_context or {}).get("request")
    declared = request.META.get("CONTENT_LENGTH") if request is not None else None
    if declared and declared.isdigit() and int(declared) > limit:
        raise RequestTooLarge(too_large_message(limit))
    return read_limited(stream, limit)


class LimitedFormParser(FormParser):
    """``application/x-www-form-urlencoded`` bodies up to the size limit (413 beyond)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        return QueryDict(read_body(stream, parser_context), encoding=encoding)


class LimitedJSONParser(JSONParser):
    """``application/json`` bodies up to the size limit and ``QOELAB_JSON_MAX_DEPTH``
    levels; violations are 413 and 400 with a ``detail`` naming the limit."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        body = read_body(stream, parser_context)
        deepest = max_depth()
        if nesting_depth(body, deepest) > deepest:
            raise ParseError(f"JSON parse error - nested deeper than {deepest} levels.")
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = body.decode(encoding)
            return json.loads(text, parse_constant=_refuse_constant)
        except (ValueError, RecursionError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


def _refuse_constant(name: str) -> Any:
    """NaN and ±Infinity are not JSON (RFC 8259); DRF's strict parser refuses them too."""
    raise ValueError(f"{name} is not a valid JSON value")
