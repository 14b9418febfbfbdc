"""The authentication backend of every sign-in path: Django's, behind the sign-in limits.

``django.contrib.auth.authenticate`` is what the JSON login, DRF's HTTP basic auth and the
admin's sign-in form all call, with the request; checking the limits here (before
``ModelBackend`` hashes the password) covers each of them, and any path added later.
See :mod:`qoelab.accounts.throttles` (buckets of failures per address and per user name
and address) and :mod:`qoelab.accounts.name_delay` (the growing delay per user name).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from qoelab.accounts.attempts import begin
from qoelab.accounts.credentials import unusable


class ThrottledModelBackend(ModelBackend):
    """``ModelBackend`` that asks the sign-in limits before hashing, and counts failures.

    Raises :class:`qoelab.accounts.throttles.TooManyAttempts` when a limit refuses the
    check; a wrong password is counted, a correct one (or an error that is no wrong
    password) is not. A user name or password no account can have (a control character,
    a NUL byte: :mod:`qoelab.accounts.credentials`) is refused without a query.
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
        if unusable(str(username), str(password)):
            return None
        attempt = begin(request, str(username))
        try:
            user = super().authenticate(request, username=username, password=password, **kwargs)
        except BaseException:
            attempt.abandoned()
            raise
        if user is None:
            attempt.failed()
        else:
            attempt.succeeded()
        return user
