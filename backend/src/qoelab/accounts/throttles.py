"""Limits on password guessing, shared by every sign-in path (issue 13, finding 2).

Every password check — the JSON login, HTTP basic auth on any API call, the admin's sign-in
form — goes through :class:`qoelab.accounts.backends.ThrottledModelBackend`, which takes a
slot in two buckets *before* the password is hashed:

* per client address (:func:`qoelab.core.client_address.client_address`, which reads
  ``X-Forwarded-For`` only from trusted proxies): 10 a minute;
* per user name (trimmed, case-folded, hashed), whatever the address: 30 an hour, so that
  rotating addresses does not help guessing one account's password.

A check that fails keeps its slot; one that succeeds gives it back, so scripts that sign in
correctly on every request are never slowed down. When a bucket is full the request is
refused with :class:`TooManyAttempts` (429 with ``Retry-After``) and no password is hashed:
guessing costs neither a CPU hash nor a chance.

The counters are in Django's default cache, which every web process must share (production
refuses to start without a Redis cache, see qoelab.settings). Each bucket is a sliding
window made of ``SLOTS + 1`` counters of ``window / SLOTS`` seconds; the counted span is
never shorter than the window, so no rolling window ever holds more than the limit. A
request increments its slot first (Redis INCR is atomic) and reads the window after, so
concurrent requests on several workers cannot all see room that only one of them has; the
read also covers later slots, where a concurrent request whose clock has crossed a slot
boundary counts its try.

Rates: ``settings.QOELAB_AUTH_RATES = {"address": "10/minute", "username": "30/hour"}``.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import cache
from rest_framework.exceptions import Throttled

from qoelab.core.client_address import client_address

DEFAULT_RATES = {"address": "10/minute", "username": "30/hour"}
SLOTS = 10
KEY_PREFIX = "qoelab:auth-failures"
PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


@dataclass(frozen=True)
class Rate:
    """``limit`` password checks per ``window_s`` seconds."""

    limit: int
    window_s: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``"10/minute"`` → Rate(10, 60); periods: second, minute, hour, day."""
        count, _, period = text.partition("/")
        return cls(int(count), PERIODS[period.strip().lower()])

    @property
    def slot_s(self) -> int:
        return max(1, math.ceil(self.window_s / SLOTS))


class TooManyAttempts(Throttled):
    """A bucket is full: 429 ``{"detail": ...}`` with ``Retry-After`` (DRF renders it)."""

    wait: int | None  # seconds, set by Throttled.__init__ (the stubs do not declare it)
    default_detail = "Too many failed sign-in attempts."
    extra_detail_singular = "Try again in {wait} second."
    extra_detail_plural = "Try again in {wait} seconds."


@dataclass(frozen=True)
class Bucket:
    name: str
    ident: str
    rate: Rate

    def key(self, slot: int) -> str:
        return f"{KEY_PREFIX}:{self.name}:{self.ident}:{slot}"

    def window(self, now: float) -> tuple[int, list[int]]:
        """The current slot and every slot counted (oldest first).

        Besides the ``SLOTS + 1`` slots up to ``now``, the read takes the next ``SLOTS``
        slots: a concurrent request whose clock has already passed a slot boundary counts
        in a later slot, and a read that missed it would let both requests through
        (11 of 10 were seen with 4 gunicorn workers). Later slots only ever hold such
        concurrent tries, so reading them never counts an attempt older than the window.
        """
        current = int(now // self.rate.slot_s)
        return current, list(range(current - SLOTS, current + SLOTS + 1))


@dataclass
class Reservation:
    """Slots taken for one password check; :meth:`release` gives them back on success."""

    keys: list[str] = field(default_factory=list)

    def release(self) -> None:
        for key in self.keys:
            _decrement(key)
        self.keys.clear()


def configured_rates() -> dict[str, Rate]:
    rates = {**DEFAULT_RATES, **getattr(settings, "QOELAB_AUTH_RATES", {})}
    return {name: Rate.parse(text) for name, text in rates.items()}


def normalised_username(username: str) -> str:
    return hashlib.sha256(username.strip().casefold().encode("utf-8")).hexdigest()


def buckets_for(request: Any, username: str) -> list[Bucket]:
    """The address bucket (when there is a request) and the user name's bucket."""
    rates = configured_rates()
    buckets = []
    address = client_address(request) if request is not None else ""
    if address:
        buckets.append(Bucket("address", address, rates["address"]))
    if username.strip():
        buckets.append(Bucket("username", normalised_username(username), rates["username"]))
    return buckets


def reserve(buckets: Sequence[Bucket], now: float | None = None) -> Reservation:
    """Take one slot in every bucket, or raise :class:`TooManyAttempts` having taken none."""
    now = time.time() if now is None else now
    reservation = Reservation()
    for bucket in buckets:
        current, slots = bucket.window(now)
        key = bucket.key(current)
        _increment(key, timeout=bucket.rate.slot_s * (SLOTS + 2))
        reservation.keys.append(key)
        counts = _counts(bucket, slots)
        if sum(counts.values()) > bucket.rate.limit:
            reservation.release()
            raise TooManyAttempts(wait=_wait(bucket, _counts(bucket, slots), now))
    return reservation


def _counts(bucket: Bucket, slots: Iterable[int]) -> dict[int, int]:
    keys = {bucket.key(slot): slot for slot in slots}
    found = cache.get_many(list(keys))
    return {keys[key]: int(value) for key, value in found.items() if int(value) > 0}


def _wait(bucket: Bucket, counts: dict[int, int], now: float) -> int:
    """Seconds until the oldest counted slot leaves the window (at least 1)."""
    oldest = min(counts) if counts else bucket.window(now)[0]
    leaves_at = (oldest + SLOTS + 1) * bucket.rate.slot_s
    return max(1, math.ceil(leaves_at - now))


def _increment(key: str, timeout: int) -> None:
    cache.add(key, 0, timeout=timeout)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=timeout)


def _decrement(key: str) -> None:
    with contextlib.suppress(ValueError):  # already expired: nothing left to give back
        cache.decr(key)
