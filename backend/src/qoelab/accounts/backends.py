"""The authentication backend of every sign-in path: Django's, behind the guessing limits.

``django.contrib.auth.authenticate`` is what the JSON login, DRF's HTTP basic auth and the
admin's sign-in form all call, with the request; checking the limits here (before
``ModelBackend`` hashes the password) covers each of them, and any path added later.
See :mod:`qoelab.accounts.throttles` for the buckets.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from qoelab.accounts.throttles import buckets_for, reserve


class ThrottledModelBackend(ModelBackend):
    """``ModelBackend`` that takes a slot in the failure buckets before hashing.

    Raises :class:`qoelab.accounts.throttles.TooManyAttempts` when a bucket is full; a
    successful check (or an error that is no wrong password) gives its slot back.
    """

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        reservation = reserve(buckets_for(request, str(username)))
        try:
            user = super().authenticate(request, username=username, password=password, **kwargs)
        except BaseException:
            reservation.release()
            raise
        if user is not None:
            reservation.release()
        return user
