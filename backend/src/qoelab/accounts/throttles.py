"""Buckets of failed sign-in attempts, shared by every sign-in path (issues 13 and 34).

The rule (NIST SP 800-63B §5.2.2 "Rate Limiting (Throttling)", OWASP ASVS V2.2.1): limit
the *failed* attempts an attacker can make, never the correct ones of an account's owner.
Every password check — the JSON login, HTTP basic auth on any API call, the admin's
sign-in form — goes through :class:`qoelab.accounts.backends.ThrottledModelBackend`,
which asks two buckets for room *before* the password is hashed:

* per client address (:func:`qoelab.core.client_address.client_address`, which reads
  ``X-Forwarded-For`` only from trusted proxies): 10 failures a minute, any user name;
* per (user name, client address): 20 failures an hour, so that one address cannot
  spend its whole allowance on one account.

Only failures are counted: a correct password takes nothing, so a lab behind one NAT
starting 20 consoles at once, or a script sending valid basic-auth credentials with each
request, is never refused (issue 34, finding 4). A full bucket is refused with
:class:`TooManyAttempts` (429 with ``Retry-After``) and no password is hashed. There is no
lock per user name: guessing one name from many addresses meets the growing delay of
:mod:`qoelab.accounts.name_delay`, which an owner signing in from a clean address never
meets (issue 34, finding 2).

Exact under concurrency. A check *in progress* is counted in a ``pending`` counter of its
bucket until its outcome is known; a check is admitted only while ``failures + pending``
(itself included) stays within the limit, and a failure is added to ``failures`` before
its ``pending`` is given back. So no interleaving of gunicorn workers lets more failures
through than the limit, and a check that finds room taken only by checks in progress
waits (at most :data:`PATIENCE_S`) until they end instead of being refused: were they
correct, room is free again; were they wrong, the bucket is full and the answer is 429.

The counters are in Django's default cache, which every web process must share
(production refuses to start without a Redis cache, see qoelab.settings). Failures are
counted in a sliding window of ``SLOTS + 1`` counters of ``window / SLOTS`` seconds (the
counted span is never shorter than the window); pending checks in counters of
:data:`PENDING_SLOT_S` seconds that expire on their own, so a process killed during a
check holds its place for at most :data:`PENDING_SPAN_S` seconds.

Rates: ``settings.QOELAB_AUTH_RATES = {"address": "10/minute", "username_address":
"20/hour"}``.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from rest_framework.exceptions import Throttled

DEFAULT_RATES = {"address": "10/minute", "username_address": "20/hour"}
SLOTS = 10
KEY_PREFIX = "qoelab:auth"
PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
#: Pending checks: counted per slot of this length, read over the last PENDING_SPAN_S.
PENDING_SLOT_S = 10
PENDING_SPAN_S = 60
#: How long a check waits for checks in progress to end before it is refused.
PATIENCE_S = 15.0
POLL_S = 0.05


@dataclass(frozen=True)
class Rate:
    """``limit`` failed checks per ``window_s`` seconds."""

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
    """No room for another check: 429 ``{"detail": ...}`` with ``Retry-After``."""

    wait: int | None  # seconds, set by Throttled.__init__ (the stubs do not declare it)
    default_detail = "Too many failed sign-in attempts."
    extra_detail_singular = "Try again in {wait} second."
    extra_detail_plural = "Try again in {wait} seconds."


def digest(*parts: str) -> str:
    """A key part for user names and addresses: fixed length, no client text in a key."""
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def normalised_username(username: str) -> str:
    """Trimmed and case-folded: "Bob " and "bob" are one name to the limits."""
    return username.strip().casefold()


@dataclass(frozen=True)
class Bucket:
    name: str
    ident: str
    rate: Rate

    def key(self, slot: int) -> str:
        return f"{KEY_PREFIX}:{self.name}:{self.ident}:failed:{slot}"

    def pending_key(self, slot: int) -> str:
        return f"{KEY_PREFIX}:{self.name}:{self.ident}:pending:{slot}"

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


def pending_slots(now: float) -> tuple[int, list[int]]:
    """The current pending slot and those read: the last PENDING_SPAN_S and the next."""
    current = int(now // PENDING_SLOT_S)
    back = PENDING_SPAN_S // PENDING_SLOT_S
    return current, list(range(current - back, current + 2))


def configured_rates() -> dict[str, Rate]:
    rates = {**DEFAULT_RATES, **getattr(settings, "QOELAB_AUTH_RATES", {})}
    return {name: Rate.parse(rates[name]) for name in DEFAULT_RATES}


def buckets_for(address: str, username: str) -> list[Bucket]:
    """The address's bucket and the (user name, address) bucket, where both are known."""
    if not address:
        return []  # no request (a call from code): nothing to count against
    rates = configured_rates()
    buckets = [Bucket("address", digest(address), rates["address"])]
    name = normalised_username(username)
    if name:
        pair = digest(name, address)
        buckets.append(Bucket("username_address", pair, rates["username_address"]))
    return buckets


@dataclass
class Admission:
    """Room taken in some buckets for one check; end it with exactly one outcome."""

    buckets: Sequence[Bucket]
    pending: list[str] = field(default_factory=list)

    def failed(self, now: float | None = None) -> None:
        """Count the failure in every bucket, then give the pending place back."""
        now = time.time() if now is None else now
        for bucket in self.buckets:
            key = bucket.key(bucket.window(now)[0])
            increment(key, timeout=bucket.rate.slot_s * (SLOTS + 2))
        self.release()

    def release(self) -> None:
        """A success (or an error that is no wrong password): nothing is counted."""
        for key in self.pending:
            _decrement(key)
        self.pending.clear()


def admit(
    buckets: Sequence[Bucket], now: float | None = None, patience_s: float = PATIENCE_S
) -> Admission:
    """Room for one check in every bucket, or :class:`TooManyAttempts` having taken none.

    A bucket full of failures is refused at once (``Retry-After``: until the oldest counted
    failure leaves the window); one whose room is taken by checks in progress is asked
    again every :data:`POLL_S` for ``patience_s`` seconds, then refused for a second.
    """
    deadline = time.monotonic() + patience_s
    while True:
        admission = _try_admit(buckets, time.time() if now is None else now)
        if admission is not None:
            return admission
        if time.monotonic() >= deadline:
            raise TooManyAttempts(wait=1)
        time.sleep(POLL_S)


def _try_admit(buckets: Sequence[Bucket], now: float) -> Admission | None:
    """Take a pending place in every bucket; keep them only if each bucket has room."""
    admission = Admission(buckets)
    current, read = pending_slots(now)
    for bucket in buckets:
        key = bucket.pending_key(current)
        increment(key, timeout=PENDING_SPAN_S + 2 * PENDING_SLOT_S)
        admission.pending.append(key)
    busy = False
    for bucket in buckets:
        failures = _counts(bucket.key, bucket.window(now)[1])
        if sum(failures.values()) >= bucket.rate.limit:
            admission.release()
            raise TooManyAttempts(wait=_wait(bucket, failures, now))
        pending = sum(_counts(bucket.pending_key, read).values())
        busy = busy or sum(failures.values()) + pending > bucket.rate.limit
    if busy:
        admission.release()
        return None
    return admission


def _counts(key_of: Callable[[int], str], slots: Iterable[int]) -> dict[int, int]:
    keys = {key_of(slot): slot for slot in slots}
    found = cache.get_many(list(keys))
    return {keys[key]: int(value) for key, value in found.items() if int(value) > 0}


def _wait(bucket: Bucket, counts: dict[int, int], now: float) -> int:
    """Seconds until the oldest counted slot leaves the window (at least 1)."""
    oldest = min(counts) if counts else bucket.window(now)[0]
    leaves_at = (oldest + SLOTS + 1) * bucket.rate.slot_s
    return max(1, math.ceil(leaves_at - now))


def increment(key: str, timeout: int) -> None:
    """Add one to a counter (atomic in Redis: INCR), creating it with ``timeout``."""
    cache.add(key, 0, timeout=timeout)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=timeout)


def _decrement(key: str) -> None:
    with contextlib.suppress(ValueError):  # already expired: nothing left to give back
        cache.decr(key)
