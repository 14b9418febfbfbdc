"""Researcher sign-in with Django's session: who counts as a researcher, log in and out.

A *researcher* is any active Django user account — staff status is not needed. What a
researcher may see is decided per study by :mod:`qoelab.studies.access` (owner, members;
staff users also reach studies without owner, superusers every study). Stations are
shared by all researchers of the lab.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, login, logout
from django.http import HttpRequest

from qoelab.core.errors import BadRequest

#: One message for every refusal: it never tells which of name and password was wrong,
#: nor whether the account exists or is inactive.
WRONG_CREDENTIALS = "Wrong user name or password (or the account is inactive)."


class LoginFailed(BadRequest):
    """The credentials were refused; ``str()`` is the message for the sign-in form (400)."""


def log_in(request: HttpRequest, username: str, password: str) -> Any:
    """Check the credentials and start a Django session for the user; return the user.

    ``login`` rotates the session key and the CSRF token: the browser must read the
    ``csrftoken`` cookie again afterwards (the SPA reads it for every unsafe request).
    """
    user = authenticate(request, username=username, password=password)
    if user is None or not user.is_active:
        raise LoginFailed(WRONG_CREDENTIALS)
    login(request, user)
    return user


def log_out(request: HttpRequest) -> None:
    """End the session (also when there is none)."""
    logout(request)


def describe(user: Any) -> dict[str, Any]:
    """The signed-in researcher as the API shows it (``/auth/me/``, ``/auth/login/``)."""
    return {"id": user.pk, "username": user.get_username(), "is_staff": bool(user.is_staff)}
