"""Checks at the same moment from one address: correct ones all pass, wrong ones are
held to the limit exactly (issue 34, finding 4: more than 10 correct sign-ins at once
from one address, a lab behind one NAT starting its consoles, got 429).

Each check runs in its own thread with its own database connection, against a hasher
slow enough (0.2 s) that the checks overlap; the cache is the process's shared one. The
same with gunicorn workers and Redis: deploy/tests/test_sign_in_limits.py.
"""

from __future__ import annotations

import base64
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.db import connection
from rest_framework.test import APIClient

ME = "/api/v1/auth/me/"


class SlowHasher(MD5PasswordHasher):
    """MD5 that takes as long as a real hash on a busy server: checks overlap."""

    def encode(self, password: str, salt: str) -> str:
        time.sleep(0.2)
        return super().encode(password, salt)


@pytest.fixture(autouse=True)
def slow_hasher(settings: Any) -> None:
    settings.PASSWORD_HASHERS = [f"{__name__}.SlowHasher"]
    settings.QOELAB_AUTH_RATES = {"address": "10/minute", "username_address": "20/hour"}


@pytest.fixture
def slow_user(transactional_db: None) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("bob", password="bob-password-1")


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def at_once(count: int, threads: int, check: Callable[[int], int]) -> Counter[int]:
    """Run ``check(n)`` for n < count on ``threads`` threads, started together."""
    barrier = threading.Barrier(min(count, threads))

    def run(n: int) -> int:
        if n < threads:
            barrier.wait(timeout=30)
        try:
            return check(n)
        finally:
            connection.close()  # each thread's own connection

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return Counter(pool.map(run, range(count)))


def from_the_lab(username: str, password: str) -> int:
    client = APIClient(REMOTE_ADDR="192.0.2.90")
    return client.get(ME, HTTP_AUTHORIZATION=basic(username, password)).status_code


def test_twenty_correct_sign_ins_at_once_from_one_address_all_succeed(slow_user: Any) -> None:
    statuses = at_once(20, 20, lambda n: from_the_lab("bob", "bob-password-1"))
    assert statuses == Counter({200: 20})


def test_wrong_passwords_at_once_are_held_to_the_limit_exactly(slow_user: Any) -> None:
    statuses = at_once(60, 8, lambda n: from_the_lab(f"guess{n}", "wrong"))
    assert statuses == Counter({403: 10, 429: 50})


def test_correct_sign_ins_wait_for_room_among_wrong_ones(slow_user: Any) -> None:
    """Room held by wrong checks in progress makes a correct one wait, not fail: the
    wrong ones end as failures within the limit, and then the correct ones pass."""

    def mixed(n: int) -> int:
        return (
            from_the_lab(f"guess{n}", "wrong") if n < 5 else from_the_lab("bob", "bob-password-1")
        )

    statuses = at_once(25, 25, mixed)
    assert statuses == Counter({200: 20, 403: 5})
