"""The user name's growing delay: guessing slows down, the owner is never locked out.

Issue 34, finding 2: 30 wrong passwords for one user name from a few addresses locked the
account for about an hour ("Try again in 3736 seconds" for the right password).
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.accounts import name_delay
from qoelab.accounts.name_delay import DelayPolicy
from qoelab.accounts.throttles import TooManyAttempts

LOGIN, CSRF = "/api/v1/auth/login/", "/api/v1/auth/csrf/"


@pytest.fixture(autouse=True)
def fast_hasher_and_defaults(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.QOELAB_AUTH_RATES = {"address": "10/minute", "username_address": "20/hour"}
    settings.QOELAB_AUTH_DELAY = {
        "after_failures": 5,
        "cap_s": 300,
        "memory_s": 3600,
        "known_address_s": 2592000,
    }


def login(address: str, username: str, password: str) -> Any:
    client = APIClient(enforce_csrf_checks=True, REMOTE_ADDR=address)
    token = client.get(CSRF).json()["csrf_token"]
    return client.post(
        LOGIN, {"username": username, "password": password}, format="json", HTTP_X_CSRFTOKEN=token
    )


def guess_from_many_addresses(count: int, username: str = "bob") -> list[int]:
    return [login(f"198.51.100.{n + 1}", username, f"guess-{n}").status_code for n in range(count)]


@pytest.mark.django_db
def test_thirty_wrong_passwords_do_not_stop_the_owner_from_a_clean_address(user: Any) -> None:
    """The acceptance test of issue 34: each guess is a failure (400), none a lock."""
    assert guess_from_many_addresses(30) == [400] * 30
    assert login("203.0.113.7", "bob", "bob-password-1").status_code == 200
    assert login("203.0.113.9", "bob", "bob-password-1").status_code == 200


@pytest.mark.django_db
def test_an_address_that_has_failed_waits_for_a_name_under_attack(user: Any) -> None:
    guess_from_many_addresses(7)
    # A guessing address: its next check for the name waits 2**(7-5) = 4 s after the
    # name's last failure; the right password does not skip the wait (it is not known
    # to be right before the hash).
    refused = login("198.51.100.1", "bob", "bob-password-1")
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("Too many failed sign-in attempts.")
    assert 1 <= int(refused["Retry-After"]) <= 4
    # Another user name from that address is not delayed.
    assert login("198.51.100.1", "carol", "x").status_code == 400


@pytest.mark.django_db
def test_a_name_with_few_failures_is_not_delayed(user: Any) -> None:
    assert guess_from_many_addresses(4) == [400] * 4
    assert login("198.51.100.1", "bob", "bob-password-1").status_code == 200


@pytest.mark.django_db
def test_an_address_the_name_signed_in_from_is_spared(user: Any) -> None:
    """A lab behind one NAT address: a colleague's typo does not delay the owner there."""
    lab = "192.0.2.10"
    assert login(lab, "bob", "bob-password-1").status_code == 200
    assert login(lab, "carol", "typo").status_code == 400  # the lab's address has failed
    guess_from_many_addresses(12)
    assert login(lab, "bob", "bob-password-1").status_code == 200
    # Another address of the lab that never signed bob in, and has failed, waits.
    assert login("192.0.2.11", "dave", "typo").status_code == 400
    assert login("192.0.2.11", "bob", "bob-password-1").status_code == 429


def test_the_delay_doubles_from_the_threshold_up_to_the_cap() -> None:
    policy = DelayPolicy(after_failures=5, cap_s=300, memory_s=3600, known_address_s=1)
    delays = [policy.delay_s(n) for n in range(4, 16)]
    assert delays == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]
    assert policy.delay_s(10**9) == 300


def test_the_wait_is_counted_from_the_names_last_failure() -> None:
    t0 = 5_000_000.0
    for n in range(7):
        name_delay.record_failure(f"192.0.2.{n + 1}", "erin", now=t0)
    with pytest.raises(TooManyAttempts) as refused:
        name_delay.check("192.0.2.1", "erin", now=t0 + 3)
    assert refused.value.wait == 1  # 4 s after t0
    name_delay.check("192.0.2.1", "erin", now=t0 + 4)  # waited long enough
    name_delay.check("203.0.113.1", "erin", now=t0)  # a clean address never waits
    name_delay.check("192.0.2.1", "frank", now=t0)  # nor does another name


@pytest.mark.django_db
def test_a_delayed_check_is_not_counted(user: Any) -> None:
    """Refusals cost nothing and count as nothing: the name's delay does not grow."""
    guess_from_many_addresses(6)
    for _ in range(20):
        assert login("198.51.100.1", "bob", "wrong").status_code == 429
    with pytest.raises(TooManyAttempts) as refused:
        name_delay.check("198.51.100.1", "bob")
    assert refused.value.wait is not None and refused.value.wait <= 2  # still 2**(6-5)
