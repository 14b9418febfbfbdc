"""Malformed basic-auth headers are 400 JSON naming the rule, never 500 (issue 34, #3).

Issue 34: a NUL byte in a basic-auth user name gave HTTP 500 on any endpoint, for anyone
(PostgreSQL cannot hold a NUL; CI runs this module against PostgreSQL).
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.contrib.auth import authenticate
from django.db import connection
from django.test.utils import CaptureQueriesContext
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from qoelab.accounts.basic_auth import parse_basic_credentials

STUDIES = "/api/v1/studies/"
ME = "/api/v1/auth/me/"


@pytest.fixture(autouse=True)
def fast_hasher(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def call(header: str, path: str = STUDIES) -> Any:
    client = APIClient(REMOTE_ADDR="192.0.2.80")
    return client.get(path, HTTP_AUTHORIZATION=header)


def basic(raw: bytes) -> str:
    return "Basic " + base64.b64encode(raw).decode("ascii")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("raw", "names"),
    [
        (b"bob\x00:bob-password-1", "user name contains the control character U+0000"),
        (b"\x00:x", "user name contains the control character U+0000"),
        (b"bob:bob-password-1\x00", "password contains the control character U+0000"),
        (b"bob\x1b[2J:x", "user name contains the control character U+001B"),
        (b"bob:x\r\ny", "password contains the control character U+000D"),
        (b"bob\x7f:x", "user name contains the control character U+007F"),
        (b"bob:\x85x", "password contains the control character U+0085"),  # C1, not UTF-8
        (b"bob-without-colon", "no ':' between user name and password"),
    ],
)
def test_control_characters_and_a_missing_colon_are_400(user: Any, raw: bytes, names: str) -> None:
    for path in (STUDIES, ME):
        response = call(basic(raw), path)
        assert response.status_code == 400, response.content
        assert response["Content-Type"] == "application/json"
        detail = response.json()["detail"]
        assert detail.startswith("Invalid basic header: ") and names in detail
        assert "\\x" not in detail and "b'" not in detail  # no Python reprs


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("header", "names"),
    [
        ("Basic", "expected 'Basic' and one base64 token"),
        ("Basic a b", "expected 'Basic' and one base64 token"),
        ("Basic not*base64!", "not base64"),
        ("Basic Ym9", "not base64"),  # padding missing
        ("basic Ym9iOng=?", "not base64"),
        ("Basic \xff\xfe\xfd\xfc", "not base64"),
    ],
)
def test_a_malformed_token_is_400(user: Any, header: str, names: str) -> None:
    response = call(header)
    assert response.status_code == 400, response.content
    assert names in response.json()["detail"]


@pytest.mark.django_db
def test_malformed_headers_cost_no_attempt(user: Any) -> None:
    for _ in range(30):
        assert call(basic(b"bob\x00:x")).status_code == 400
    good = basic(b"bob:bob-password-1")
    assert call(good, ME).status_code == 200


@pytest.mark.django_db
def test_an_iso_8859_1_password_still_signs_in(user: Any) -> None:
    """``requests`` sends basic auth as ISO-8859-1: not UTF-8, but no control character."""
    user.set_password("passwörd")
    user.save()
    assert call(basic("bob:passwörd".encode("latin-1")), ME).status_code == 200
    assert call(basic("bob:passwörd".encode()), ME).status_code == 200
    assert call(basic("bob:passwort".encode("latin-1")), ME).status_code == 403  # wrong


@pytest.mark.django_db
def test_other_schemes_and_wrong_passwords_keep_their_answers(user: Any) -> None:
    assert call("Bearer abc").status_code == 200  # not basic auth: an anonymous caller
    response = call(basic(b"bob:wrong"), ME)
    assert response.status_code == 403
    assert response.json() == {"detail": "Invalid username/password."}


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["bob\x00", "bob\x01", "bob\ud800"])
def test_the_backend_refuses_names_no_account_has_without_a_query(user: Any, username: str) -> None:
    """Every path (the login's form validation too) ends in the backend: no query there."""
    with CaptureQueriesContext(connection) as queries:
        assert authenticate(None, username=username, password="bob-password-1") is None
        assert authenticate(None, username="bob", password="bob\x00") is None
    assert len(queries) == 0


@pytest.mark.django_db
def test_the_json_login_refuses_a_nul_byte_with_400(user: Any) -> None:
    client = APIClient()
    response = client.post(
        "/api/v1/auth/login/", {"username": "bob\x00", "password": "x"}, format="json"
    )
    assert response.status_code == 400
    assert "username" in response.json()


def test_parsing_returns_the_decoded_pair() -> None:
    token = base64.b64encode("ana:pa:ss wörd".encode())
    assert parse_basic_credentials(token) == ("ana", "pa:ss wörd")


def test_the_schema_still_describes_basic_auth() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    assert schema["components"]["securitySchemes"]["basicAuth"] == {
        "type": "http",
        "scheme": "basic",
    }
    security = schema["paths"]["/api/v1/studies/"]["post"]["security"]
    assert {"basicAuth": []} in security
