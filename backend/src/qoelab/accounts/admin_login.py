"""The admin's sign-in form under the same guessing limits as the API (a form error there)."""

from __future__ import annotations

from typing import Any

from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError

from qoelab.accounts.throttles import TooManyAttempts


class ThrottledAdminAuthenticationForm(AdminAuthenticationForm):
    """A full bucket shows "try again in N seconds" instead of checking the password."""

    def clean(self) -> dict[str, Any]:
        try:
            return super().clean()
        except TooManyAttempts as exc:
            raise ValidationError(
                "Too many failed sign-in attempts; try again in %(wait)s seconds.",
                code="throttled",
                params={"wait": exc.wait},
            ) from None
