"""JSON sign-in for the browser app: CSRF, login, me, logout (limits: test_throttles.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from qoelab.accounts.services import WRONG_CREDENTIALS
from qoelab.studies.models import Study

LOGIN, LOGOUT, ME, CSRF = (f"/api/v1/auth/{name}/" for name in ("login", "logout", "me", "csrf"))


@pytest.fixture(autouse=True)
def fast_hasher(settings: Any) -> None:
    """Passwords hashed quickly (the counters: the ``fresh_throttles`` fixture)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def browser() -> APIClient:
    """A client that checks CSRF as a browser's requests are checked."""
    return APIClient(enforce_csrf_checks=True)


def csrf_token(client: APIClient) -> str:
    response = client.get(CSRF)
    assert response.status_code == 200
    token: str = response.json()["csrf_token"]
    assert client.cookies["csrftoken"].value
    return token


def login(client: APIClient, username: str, password: str, token: str | None = None) -> Any:
    headers = {"HTTP_X_CSRFTOKEN": token} if token else {}
    return client.post(
        LOGIN, {"username": username, "password": password}, format="json", **headers
    )


@pytest.mark.django_db
def test_sign_in_me_and_sign_out_as_the_browser_app_does(user: Any) -> None:
    client = browser()
    # Not signed in: me says so (and sets the CSRF cookie for the sign-in form).
    response = client.get(ME)
    assert response.status_code == 403
    assert "csrftoken" in response.cookies
    assert response["Cache-Control"].startswith("max-age=0")

    token = csrf_token(client)
    cookie_before = client.cookies["csrftoken"].value
    response = login(client, "bob", "bob-password-1", token)
    assert response.status_code == 200, response.content
    assert response.json() == {"user": {"id": user.pk, "username": "bob", "is_staff": False}}
    assert "sessionid" in response.cookies
    # Django rotates the CSRF token at login: the browser reads the new cookie.
    new_token = response.cookies["csrftoken"].value
    assert new_token and new_token != cookie_before
    assert client.post(LOGOUT, HTTP_X_CSRFTOKEN=token).status_code == 403  # the old one

    assert client.get(ME).json() == {"id": user.pk, "username": "bob", "is_staff": False}
    # A non-staff researcher uses the researcher API (here: creates a study, owns it).
    created = client.post(
        "/api/v1/studies/",
        {"slug": "bobs-study", "title": "Bob's study"},
        format="json",
        HTTP_X_CSRFTOKEN=new_token,
    )
    assert created.status_code == 201, created.content
    assert Study.objects.get(slug="bobs-study").owner == user
    assert client.get("/api/v1/stations/").status_code == 200

    # Logout needs the CSRF token like every unsafe request of a session.
    assert client.post(LOGOUT).status_code == 403
    assert client.get(ME).status_code == 200
    assert client.post(LOGOUT, HTTP_X_CSRFTOKEN=new_token).status_code == 204
    assert client.get(ME).status_code == 403
    assert client.get("/api/v1/stations/").status_code == 403
    # Logging out again is harmless.
    assert client.post(LOGOUT).status_code == 204


@pytest.mark.django_db
def test_login_without_a_csrf_token_is_refused_even_when_anonymous(user: Any) -> None:
    client = browser()
    response = login(client, "bob", "bob-password-1")
    assert response.status_code == 403
    assert response.json()["detail"].startswith("CSRF Failed")
    client.get(CSRF)
    response = login(client, "bob", "bob-password-1", token="x" * 32)
    assert response.status_code == 403
    assert client.get(ME).status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "password"),
    [("bob", "wrong-password"), ("nobody", "bob-password-1"), ("BOB", "bob-password-1")],
)
def test_wrong_credentials_are_400_with_one_message(
    user: Any, username: str, password: str
) -> None:
    client = browser()
    response = login(client, username, password, csrf_token(client))
    assert response.status_code == 400
    assert response.json() == {"detail": WRONG_CREDENTIALS}
    assert client.get(ME).status_code == 403


@pytest.mark.django_db
def test_an_inactive_account_cannot_sign_in(user: Any) -> None:
    user.is_active = False
    user.save()
    client = browser()
    response = login(client, "bob", "bob-password-1", csrf_token(client))
    assert response.status_code == 400
    assert response.json() == {"detail": WRONG_CREDENTIALS}


@pytest.mark.django_db
def test_missing_fields_are_400_per_field() -> None:
    client = browser()
    token = csrf_token(client)
    response = client.post(LOGIN, {"username": "bob"}, format="json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 400
    assert response.json() == {"password": ["This field is required."]}
    response = client.post(
        LOGIN, "not json", content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 400


@pytest.mark.django_db
def test_me_shows_staff_status_and_accepts_basic_auth() -> None:
    get_user_model().objects.create_user("carol", password="carol-password-1", is_staff=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic Y2Fyb2w6Y2Fyb2wtcGFzc3dvcmQtMQ==")
    body = client.get(ME).json()
    assert body["username"] == "carol" and body["is_staff"] is True
