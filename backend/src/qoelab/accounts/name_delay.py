"""A growing delay per user name, instead of a lock that strangers could set (issue 34).

The rule: after ``after_failures`` failed checks for one user name (from any address,
counted until the name has had no failure for ``memory_s`` seconds), a check for that name
from an address that has failed itself must wait ``2 ** (n - after_failures)`` seconds
after the name's last failure, at most ``cap_s`` (n: the name's failures). Defaults: after
5 failures, 1 s, 2 s, 4 s … capped at 5 minutes; an hour's memory.

Why (NIST SP 800-63B §5.2.2 "Rate Limiting (Throttling)"; OWASP ASVS V2.2.1): guessing
one account's password from many addresses must slow down, but a hard lock per user name
let anyone who knew a researcher's name lock them out for an hour with 30 wrong
passwords (issue 34, finding 2; the name is public). The delay therefore spares:

* an address with no failure in the memory window — a *clean* address: the owner at home
  or in the lab is never delayed by someone else's guessing; an attacker gets one try per
  address before that address is delayed too;
* an address from which this user name has signed in successfully in the last
  ``known_address_s`` seconds (30 days): NIST's "addresses from which the subscriber has
  been successfully authenticated before", for an owner whose lab shares one NAT address
  with a colleague who mistyped a password.

The delay is a soft limit read before the hash (checks of one name running at the same
moment may all pass it); the exact limits are the buckets of :mod:`.throttles`.
Settings: ``settings.QOELAB_AUTH_DELAY = {"after_failures": 5, "cap_s": 300, "memory_s":
3600, "known_address_s": 2592000}``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from qoelab.accounts.throttles import (
    KEY_PREFIX,
    TooManyAttempts,
    digest,
    increment,
    normalised_username,
)

DEFAULT_DELAY = {"after_failures": 5, "cap_s": 300, "memory_s": 3600, "known_address_s": 2592000}


@dataclass(frozen=True)
class DelayPolicy:
    after_failures: int
    cap_s: int
    memory_s: int
    known_address_s: int

    @classmethod
    def configured(cls) -> DelayPolicy:
        values = {**DEFAULT_DELAY, **getattr(settings, "QOELAB_AUTH_DELAY", {})}
        return cls(**{name: int(values[name]) for name in DEFAULT_DELAY})

    def delay_s(self, failures: int) -> float:
        """Seconds a delayed check waits after the name's last failure (0: none yet)."""
        if failures < self.after_failures:
            return 0.0
        # The exponent is bounded so that a name with a million failures stays cheap.
        return float(min(self.cap_s, 2 ** min(failures - self.after_failures, 40)))


@dataclass(frozen=True)
class Keys:
    """The cache keys of one check's user name and address (digests, no client text)."""

    name: str
    address: str
    pair: str

    @classmethod
    def of(cls, address: str, username: str) -> Keys:
        name = normalised_username(username)
        return cls(
            name=f"{KEY_PREFIX}:name:{digest(name)}",
            address=f"{KEY_PREFIX}:address-failed:{digest(address)}",
            pair=f"{KEY_PREFIX}:signed-in:{digest(name, address)}",
        )


def check(address: str, username: str, now: float | None = None) -> None:
    """Raise :class:`TooManyAttempts` if this check must still wait (see module doc)."""
    if not address or not normalised_username(username):
        return  # no address to judge, or no name to delay
    keys = Keys.of(address, username)
    found = cache.get_many([keys.address, keys.pair, f"{keys.name}:failures", f"{keys.name}:last"])
    if not found.get(keys.address) or found.get(keys.pair):
        return  # a clean address, or one the name has signed in from
    policy = DelayPolicy.configured()
    delay = policy.delay_s(int(found.get(f"{keys.name}:failures") or 0))
    last = float(found.get(f"{keys.name}:last") or 0.0)
    now = time.time() if now is None else now
    if delay and now < last + delay:
        raise TooManyAttempts(wait=max(1, math.ceil(last + delay - now)))


def record_failure(address: str, username: str, now: float | None = None) -> None:
    """Count a failure for the name (its memory restarts) and mark the address as failed."""
    policy = DelayPolicy.configured()
    now = time.time() if now is None else now
    keys = Keys.of(address, username)
    if address:
        cache.set(keys.address, 1, timeout=policy.memory_s)
    if not normalised_username(username):
        return
    failures = f"{keys.name}:failures"
    increment(failures, timeout=policy.memory_s)
    cache.touch(failures, timeout=policy.memory_s)  # the memory restarts at each failure
    cache.set(f"{keys.name}:last", now, timeout=policy.memory_s)


def record_success(address: str, username: str) -> None:
    """Remember the address as one the name signs in from (spared the delay)."""
    if address and normalised_username(username):
        policy = DelayPolicy.configured()
        cache.set(Keys.of(address, username).pair, 1, timeout=policy.known_address_s)
