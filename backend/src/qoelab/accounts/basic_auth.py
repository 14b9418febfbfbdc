"""HTTP basic auth that answers a malformed ``Authorization`` header with 400 JSON.

DRF's ``BasicAuthentication`` passed any decoded text on to the password check: a NUL
byte in the user name reached PostgreSQL, which cannot store one, and every endpoint
answered 500 to anyone (issue 34, finding 3). Here the header is parsed by RFC 7617:
``Basic`` and one base64 token (strict alphabet), decoding to ``user-id ":" password``,
neither containing a control character (RFC 7617 §2). Anything else is **400**
``{"detail": "Invalid basic header: …"}`` naming what is wrong, before any password
check, so it costs no hash and counts as no attempt. Wrong credentials stay what they
were (403 ``Invalid username/password.``, 429 when a sign-in limit refuses).

The decoded bytes are read as UTF-8 or, failing that, as ISO-8859-1, as DRF did: RFC
7617 leaves the charset open and ``requests`` sends ISO-8859-1, so a script whose
password has an "ö" keeps working; a C1 control character from that reading is refused
like any other.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from drf_spectacular.authentication import BasicScheme
from rest_framework.authentication import BasicAuthentication, get_authorization_header
from rest_framework.exceptions import ParseError
from rest_framework.request import Request

from qoelab.accounts.credentials import forbidden_character


class MalformedBasicHeader(ParseError):
    """400 ``{"detail": "Invalid basic header: …"}``."""

    default_code = "malformed_basic_auth"

    def __init__(self, problem: str) -> None:
        super().__init__(f"Invalid basic header: {problem}.")


def parse_basic_credentials(token: bytes) -> tuple[str, str]:
    """``(user_id, password)`` from the base64 token, or :class:`MalformedBasicHeader`."""
    try:
        raw = base64.b64decode(token, validate=True)
    except (binascii.Error, ValueError):
        raise MalformedBasicHeader("the credentials are not base64 (RFC 7617)") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")  # every byte string decodes (see module doc)
    user_id, colon, password = text.partition(":")
    if not colon:
        raise MalformedBasicHeader("the credentials have no ':' between user name and password")
    for field, value in (("user name", user_id), ("password", password)):
        found = forbidden_character(value)
        if found:
            raise MalformedBasicHeader(
                f"the {field} contains the control character {found}; RFC 7617 forbids "
                "control characters in basic-auth credentials"
            )
    return user_id, password


class StrictBasicAuthentication(BasicAuthentication):
    """``REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"]``: basic auth by RFC 7617."""

    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        try:
            parts = get_authorization_header(request).split()
        except UnicodeEncodeError:  # only a test client can pass non-ISO-8859-1 text
            raise MalformedBasicHeader("the header is not ISO-8859-1 text") from None
        if not parts or parts[0].lower() != b"basic":
            return None  # another scheme, or none: not ours to judge
        if len(parts) != 2:
            raise MalformedBasicHeader("expected 'Basic' and one base64 token")
        user_id, password = parse_basic_credentials(parts[1])
        result: tuple[Any, None] = self.authenticate_credentials(user_id, password, request)
        return result


class StrictBasicScheme(BasicScheme):  # type: ignore[no-untyped-call]
    """The OpenAPI schema describes it as the ``basicAuth`` scheme, like DRF's class."""

    target_class = "qoelab.accounts.basic_auth.StrictBasicAuthentication"
