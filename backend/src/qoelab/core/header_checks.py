"""Malformed request headers are refused with a 400 before the app reads them (issue 34).

Tested from outside, a NUL byte that reached the database was a 500 for anyone: a session
cookie ``sessionid="…\\000"`` (Django unquotes the octal escape into U+0000, and
PostgreSQL text cannot hold it), an ``X-Participant-Token`` with a NUL. gunicorn refuses
raw control characters in header values itself (deploy/gunicorn.conf.py answers those in
JSON too), but other servers (the demo's ``runserver``), proxies and escapes let them
through. The rules, checked here once for every header instead of in each reader:

* a header value must not contain a control character other than HTAB (U+0000-U+0008,
  U+000A-U+001F, U+007F): RFC 9110 §5.5 calls CR, LF and NUL "invalid and dangerous",
  and no browser sends the others;
* a cookie, once unquoted, must not either (RFC 6265 §4.1.1: no CTLs in a cookie value);
* a query parameter must not contain U+0000 (percent-encoded ``%00``): no parameter of this
  app takes one, and PostgreSQL cannot compare text with it.

The answer is 400: JSON ``{"detail": …}`` under /api/ (like every error there), plain text
elsewhere; the message names the header, cookie or parameter and the character, never
echoes the value. Basic-auth credentials are checked after base64 decoding by the sign-in
code (qoelab.accounts).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase

from qoelab.core.api_errors import is_api, json_error

#: RFC 9110 §5.5: field values are visible characters, obs-text, SP and HTAB only.
CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
#: The headers WSGI passes without the HTTP_ prefix.
UNPREFIXED_HEADERS = ("CONTENT_TYPE", "CONTENT_LENGTH")
#: Longest name quoted back in a message (names are the client's, too).
MAX_NAME_LENGTH = 40


def header_name(meta_key: str) -> str:
    """``HTTP_X_FORWARDED_FOR`` → ``X-Forwarded-For`` (header names are case-insensitive)."""
    name = meta_key.removeprefix("HTTP_")
    return "-".join(part.capitalize() for part in name.split("_"))


def _printable(name: str) -> str:
    """A name as it may be quoted in a message: printable ASCII, at most 40 characters."""
    cleaned = "".join(c if " " < c < "\x7f" else "?" for c in name[:MAX_NAME_LENGTH])
    return cleaned + ("…" if len(name) > MAX_NAME_LENGTH else "")


def _codepoint(match: re.Match[str]) -> str:
    return f"U+{ord(match.group()):04X}"


def header_problem(meta: Mapping[str, Any]) -> str | None:
    """The first header value with a control character, as a message; None if all are clean."""
    for key in sorted(meta):
        if not (key.startswith("HTTP_") or key in UNPREFIXED_HEADERS):
            continue
        value = meta[key]
        found = CONTROL_CHARACTER.search(value) if isinstance(value, str) else None
        if found:
            return (
                f'The "{_printable(header_name(key))}" header contains the control character '
                f"{_codepoint(found)}; header values may not (RFC 9110 §5.5)."
            )
    return None


def cookie_problem(cookies: Mapping[str, str]) -> str | None:
    """The first cookie whose name or unquoted value has a control character, as a message."""
    for name, value in cookies.items():
        found = CONTROL_CHARACTER.search(name) or CONTROL_CHARACTER.search(value)
        if found:
            return (
                f'The cookie "{_printable(name)}" contains the control character '
                f"{_codepoint(found)} once unquoted; cookies may not (RFC 6265 §4.1.1)."
            )
    return None


def query_problem(parameters: Iterable[tuple[str, str]]) -> str | None:
    """The first query parameter (name or value) holding U+0000, as a message."""
    for name, value in parameters:
        if "\x00" in name or "\x00" in value:
            return (
                f'The query parameter "{_printable(name)}" contains U+0000 (%00); '
                "no parameter takes it."
            )
    return None


def request_problem(request: HttpRequest) -> str | None:
    """Why ``request`` is malformed (headers, cookies, query string), or None."""
    return (
        header_problem(request.META)
        or cookie_problem(request.COOKIES)
        or query_problem((name, value) for name, values in request.GET.lists() for value in values)
    )


class HeaderCheckMiddleware:
    """Answers 400 to a request with a control character where the app would read it.

    Placed right after ``ApiErrorMiddleware`` (the answer carries a request id) and before
    every middleware that reads headers or cookies (security, sessions, CSRF, auth).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        problem = request_problem(request)
        if problem is None:
            return self.get_response(request)
        if is_api(request):
            return json_error(400, problem)
        return HttpResponse(problem, status=400, content_type="text/plain; charset=utf-8")
