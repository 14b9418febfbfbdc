"""Rate limits of the sign-in endpoint (no settings needed: the rates live here).

Two buckets, both counting every attempt (successful or not):

* :class:`LoginRateThrottle` — per client address (DRF's ``ScopedRateThrottle`` with the
  view's ``throttle_scope = "login"``): 10 attempts a minute;
* :class:`LoginUsernameRateThrottle` — per submitted user name, whichever address it comes
  from: 30 attempts an hour (so rotating addresses does not help guessing one password).

A ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` entry for the scope overrides the rate.
The counters live in Django's default cache; see docs/api.md for what that means with
several web processes and behind a proxy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle


def _configured_rate(scope: str | None, default: str) -> str:
    from rest_framework.settings import api_settings

    rates = api_settings.DEFAULT_THROTTLE_RATES or {}
    rate = rates.get(scope) if scope else None
    return str(rate) if rate else default


class LoginRateThrottle(ScopedRateThrottle):
    """Sign-in attempts per client address (the view sets ``throttle_scope``)."""

    default_rate = "10/minute"

    def get_rate(self) -> str:
        return _configured_rate(self.scope, self.default_rate)


class LoginUsernameRateThrottle(SimpleRateThrottle):
    """Sign-in attempts per user name (hashed into the cache key)."""

    scope = "login_username"
    default_rate = "30/hour"

    def get_rate(self) -> str:
        return _configured_rate(self.scope, self.default_rate)

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        data = request.data
        username = data.get("username") if isinstance(data, Mapping) else None
        if not isinstance(username, str) or not username.strip():
            return None  # nothing to guess a password for: the address bucket still counts
        digest = hashlib.sha256(username.strip().casefold().encode("utf-8")).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": digest}
