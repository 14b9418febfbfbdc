"""Who sees the details of /healthz (issue 34, finding 5).

Anonymous ``/healthz`` used to show the database's vendor, host, port and name, the
broker's URL and the worker's host name: a map of the lab's network for anyone who can
reach the server. The rule now (docs/api.md, "Health"):

* anyone gets ``{"status": "ok"}`` (200) or ``{"status": "degraded"}`` (503) and nothing
  else — enough for a load balancer or a container health check;
* a signed-in staff user (the Django session of the admin or the console), or a request
  that sends ``QOELAB_HEALTH_TOKEN`` in the ``X-Health-Token`` header, also gets each
  check's details (monitoring scripts, ``curl`` on the server).

The token is compared in constant time (``hmac.compare_digest``); an empty
``QOELAB_HEALTH_TOKEN`` (the default) means staff only. A set token must be at least
``MIN_TOKEN_LENGTH`` characters, so that it cannot be guessed in a few tries.
"""

from __future__ import annotations

import hmac
import os
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db.utils import Error as DatabaseError

HEALTH_TOKEN_HEADER = "X-Health-Token"
MIN_TOKEN_LENGTH = 16


def parse_health_token(raw: str | None = None, variable: str = "QOELAB_HEALTH_TOKEN") -> str:
    """The configured token (blank: none; ``raw`` defaults to the variable's value in the
    environment); a short one is a configuration error."""
    token = (os.environ.get(variable, "") if raw is None else raw).strip()
    if token and len(token) < MIN_TOKEN_LENGTH:
        raise ImproperlyConfigured(
            f"{variable} is {len(token)} characters long; use at least {MIN_TOKEN_LENGTH} "
            "(e.g. the output of `openssl rand -hex 24`), or leave it empty for staff only."
        )
    return token


def shows_details(request: Any) -> bool:
    """Does this request see the checks' details (the health token, or a staff session)?"""
    if _holds_token(request):
        return True
    try:
        user = getattr(request, "user", None)
        return bool(user is not None and user.is_authenticated and user.is_staff)
    except DatabaseError:
        # The session is read from the database, which may be the very thing that is down:
        # the probe still answers (degraded, without details) instead of failing.
        return False


def _holds_token(request: Any) -> bool:
    expected = str(getattr(settings, "QOELAB_HEALTH_TOKEN", "") or "")
    given = request.headers.get(HEALTH_TOKEN_HEADER, "")
    if not expected or not given:
        return False
    # compare_digest refuses non-ASCII str: compare bytes (the header as WSGI decoded it).
    return hmac.compare_digest(
        given.encode("latin-1", "replace"), expected.encode("utf-8", "replace")
    )
