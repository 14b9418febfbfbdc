"""The buckets of failed sign-in attempts on every sign-in path (issues 13 and 34).

The JSON login, HTTP basic auth on any endpoint and the admin's form share the buckets
(per client address; per user name and address); a full bucket is refused before any
password is hashed, and only failures fill it. The user name's delay is
test_name_delay.py, checks at the same moment test_concurrent_checks.py; the
multi-worker proof against gunicorn and Redis is deploy/tests/test_sign_in_limits.py.
"""

from __future__ import annotations

import base64
from typing import Any, ClassVar

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from qoelab.accounts.throttles import SLOTS, Bucket, Rate, TooManyAttempts, admit

LOGIN, ME, CSRF = "/api/v1/auth/login/", "/api/v1/auth/me/", "/api/v1/auth/csrf/"


class CountingHasher(MD5PasswordHasher):
    """MD5 (fast), counting every hash computed: a refused guess must cost none."""

    calls: ClassVar[int] = 0

    def encode(self, password: str, salt: str) -> str:
        CountingHasher.calls += 1
        return super().encode(password, salt)


@pytest.fixture(autouse=True)
def counting_hasher_and_rates(settings: Any) -> None:
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    settings.QOELAB_AUTH_RATES = {"address": "10/minute", "username_address": "20/hour"}


def browser(address: str = "127.0.0.1", **extra: str) -> APIClient:
    return APIClient(enforce_csrf_checks=True, REMOTE_ADDR=address, **extra)


def login(client: APIClient, username: str, password: str, **headers: str) -> Any:
    token = client.get(CSRF).json()["csrf_token"]
    return client.post(
        LOGIN,
        {"username": username, "password": password},
        format="json",
        HTTP_X_CSRFTOKEN=token,
        **headers,
    )


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


@pytest.mark.django_db
def test_login_is_limited_per_address_and_refused_before_hashing(user: Any) -> None:
    client = browser()
    statuses = [login(client, f"guess{n}", "wrong").status_code for n in range(10)]
    assert statuses == [400] * 10
    hashes_before = CountingHasher.calls
    refused = login(client, "bob", "bob-password-1")
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("Too many failed sign-in attempts.")
    assert 1 <= int(refused["Retry-After"]) <= 66
    assert CountingHasher.calls == hashes_before  # no password was hashed
    # Another address is not affected.
    assert login(browser("10.1.2.3"), "bob", "bob-password-1").status_code == 200


@pytest.mark.django_db
def test_correct_sign_ins_are_never_counted(user: Any) -> None:
    """Issue 34: only failures fill the address's bucket."""
    client = browser()
    for _ in range(25):
        assert login(client, "bob", "bob-password-1").status_code == 200
    # Still the whole allowance of failures: the 25 took nothing.
    statuses = [login(client, f"guess{n}", "wrong").status_code for n in range(11)]
    assert statuses == [400] * 10 + [429]


@pytest.mark.django_db
def test_login_is_limited_per_user_name_and_address(user: Any, settings: Any) -> None:
    settings.QOELAB_AUTH_RATES = {"address": "10/minute", "username_address": "3/hour"}
    client = browser("10.0.0.1")
    assert [login(client, "Bob ", "wrong").status_code for _ in range(3)] == [400] * 3
    assert login(client, "bob", "bob-password-1").status_code == 429  # the pair is full
    assert login(client, "someone-else", "x").status_code == 400  # the address is not
    assert login(browser("10.0.0.2"), "bob", "bob-password-1").status_code == 200


@pytest.mark.django_db
def test_forged_requests_cost_no_attempt(user: Any) -> None:
    client = browser()
    for _ in range(20):
        response = client.post(LOGIN, {"username": "bob", "password": "x"}, format="json")
        assert response.status_code == 403
    assert login(client, "bob", "bob-password-1").status_code == 200


@pytest.mark.django_db
def test_basic_auth_is_limited_with_429_json_and_retry_after(user: Any, settings: Any) -> None:
    """Issue 13: 200 wrong basic-auth passwords, never a 429, each a full hash."""
    settings.QOELAB_AUTH_DELAY = {"after_failures": 1000}  # the address's bucket alone
    client = APIClient(REMOTE_ADDR="192.0.2.50")
    statuses = []
    hashes_before = CountingHasher.calls
    for n in range(200):
        client.credentials(HTTP_AUTHORIZATION=basic("bob", f"guess-{n}"))
        response = client.get("/api/v1/studies/")
        statuses.append(response.status_code)
    assert statuses[:10] == [403] * 10  # wrong password (no WWW-Authenticate scheme first)
    assert statuses[10:] == [429] * 190
    assert CountingHasher.calls - hashes_before == 10
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"].startswith("Too many failed sign-in attempts.")
    assert int(response["Retry-After"]) >= 1
    # The JSON login shares the bucket: the same address is refused there too.
    assert login(browser("192.0.2.50"), "bob", "bob-password-1").status_code == 429


@pytest.mark.django_db
def test_basic_auth_with_the_right_password_is_never_limited(user: Any) -> None:
    client = APIClient(REMOTE_ADDR="192.0.2.51")
    client.credentials(HTTP_AUTHORIZATION=basic("bob", "bob-password-1"))
    assert all(client.get(ME).status_code == 200 for _ in range(40))


@pytest.mark.django_db
def test_a_forged_forwarded_for_gives_no_fresh_bucket(user: Any, settings: Any) -> None:
    """Issue 13: with NUM_PROXIES=1 a forged header gave each try its own bucket."""
    settings.QOELAB_TRUSTED_PROXIES = []
    client = browser("203.0.113.9")
    allowed = sum(
        login(client, f"x{n}", "wrong", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code == 400
        for n in range(60)
    )
    assert allowed == 10


@pytest.mark.django_db
def test_behind_a_trusted_proxy_clients_get_their_own_buckets(user: Any, settings: Any) -> None:
    settings.QOELAB_TRUSTED_PROXIES = ["127.0.0.1/32"]
    proxy = browser("127.0.0.1")
    for n in range(10):
        response = login(proxy, f"x{n}", "wrong", HTTP_X_FORWARDED_FOR="forged, 198.51.100.1")
        assert response.status_code == 400, n
    assert login(proxy, "y", "wrong", HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 429
    # Forging a left-hand entry does not help: nginx appends the address it saw.
    forged = login(proxy, "z", "wrong", HTTP_X_FORWARDED_FOR="1.1.1.1, 198.51.100.1")
    assert forged.status_code == 429
    assert login(proxy, "x", "wrong", HTTP_X_FORWARDED_FOR="198.51.100.2").status_code == 400


@pytest.mark.django_db
def test_the_admin_form_shares_the_limit(user: Any) -> None:
    client = Client(REMOTE_ADDR="192.0.2.60")
    for n in range(10):
        response = client.post("/admin/login/", {"username": f"g{n}", "password": "x"})
        assert response.status_code == 200 and b"correct username" in response.content
    hashes_before = CountingHasher.calls
    response = client.post("/admin/login/", {"username": "bob", "password": "x"})
    assert b"Too many failed sign-in attempts" in response.content
    assert CountingHasher.calls == hashes_before


def try_once(bucket: Bucket, now: float) -> bool:
    """One wrong password at ``now``: True if it was let through (and counted)."""
    try:
        admission = admit([bucket], now=now, patience_s=0)
    except TooManyAttempts as exc:
        assert exc.wait is not None and exc.wait >= 1
        return False
    admission.failed(now)
    return True


def test_the_window_never_counts_less_than_its_length() -> None:
    """Any two slots counted together lie within one window: ≤ limit per rolling minute."""
    bucket = Bucket("address", "192.0.2.1", Rate.parse("10/minute"))
    cache.clear()
    # One try per second for three minutes: 10 allowed per rolling 60 s, never more.
    times = [1_000_000.0 + second for second in range(180)]
    allowed_at = [now for now in times if try_once(bucket, now)]
    for start in allowed_at:
        assert sum(start <= t < start + 60 for t in allowed_at) <= 10
    assert len(allowed_at) >= 10 * 180 // (60 + 60 // SLOTS)  # and the limit is not stricter


def test_a_try_counted_in_the_next_slot_is_seen_by_a_concurrent_one() -> None:
    """Two requests straddle a slot boundary: the later clock counts in the next slot, and
    the request still in the earlier slot must see those tries (it read only up to its own
    slot before, and 11 of 10 got through across gunicorn workers)."""
    bucket = Bucket("address", "192.0.2.2", Rate.parse("10/minute"))
    cache.clear()
    boundary = 1_000_002.0 * bucket.rate.slot_s
    for _ in range(10):
        assert try_once(bucket, boundary + 0.1)  # clocks already in the new slot
    with pytest.raises(TooManyAttempts):
        admit([bucket], now=boundary - 0.1, patience_s=0)  # a clock just before it


def test_checks_in_progress_take_room_until_their_outcome() -> None:
    """Room held by checks in progress: a further check waits (here: none), then is
    refused for a second only; a success gives the room back, a failure fills it."""
    bucket = Bucket("address", "192.0.2.3", Rate.parse("2/minute"))
    cache.clear()
    now = 2_000_000.0
    first, second = admit([bucket], now=now), admit([bucket], now=now)
    with pytest.raises(TooManyAttempts) as busy:
        admit([bucket], now=now, patience_s=0)
    assert busy.value.wait == 1
    first.release()  # a correct password: nothing counted
    third = admit([bucket], now=now, patience_s=0)
    second.failed(now)
    third.failed(now)
    with pytest.raises(TooManyAttempts) as full:
        admit([bucket], now=now, patience_s=0)
    assert full.value.wait is not None and full.value.wait > 1  # until the failures age
