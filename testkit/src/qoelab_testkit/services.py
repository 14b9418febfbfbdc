"""An own PostgreSQL database and an own pair of Redis databases for one test run.

The database (``<prefix>_<random>`` on the server of DATABASE_URL) is created for the run
and dropped afterwards; the Redis pair (broker, results) is claimed with a key that
expires, emptied before and after. Two runs — two suites, or two CI clones on one
machine — never see each other's data or tasks.

Without DATABASE_URL / CELERY_BROKER_URL the local defaults are tried
(postgres://postgres@127.0.0.1:5432/postgres, redis://127.0.0.1:6379/0). A missing or
non-PostgreSQL/Redis service skips the test, or fails it with QOELAB_STRICT=1 (CI).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from qoelab_testkit.prerequisites import require

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/0"
#: Pairs of Redis database numbers (broker, results) that a run may claim; 0–9 are left
#: to the developer's own use and to suites that talk to the broker directly.
REDIS_DB_PAIRS = ((10, 11), (12, 13), (14, 15))
REDIS_CLAIM_KEY = "qoelab-testkit:claim"


@dataclass
class Services:
    database_url: str  # the server's URL with the run's database name
    broker_url: str
    result_url: str
    database: str
    admin_url: str  # where CREATE/DROP DATABASE are sent
    redis_dbs: tuple[int, int] = (0, 0)
    run_id: str = field(default_factory=lambda: secrets.token_hex(4))


def with_path(url: str, path: str) -> str:
    """``url`` with its path replaced (the database name or Redis database number)."""
    return urlunsplit(urlsplit(url)._replace(path=path, query="", fragment=""))


def redis_client(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=10)


def _postgres_error(url: str) -> str:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=3) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0]
    return ""


def _redis_error(url: str) -> str:
    try:
        redis_client(url).ping()
    except Exception as exc:  # any failure means: no usable Redis
        return str(exc)
    return ""


@contextlib.contextmanager
def isolated_services(purpose: str, prefix: str = "qoelab_test") -> Iterator[Services]:
    """An own database and an own pair of Redis databases for the duration.

    ``purpose`` names the caller in the messages ("the production smoke test").
    """
    database_url = os.environ.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL
    broker_url = os.environ.get("CELERY_BROKER_URL", "").strip() or DEFAULT_BROKER_URL
    require(
        urlsplit(database_url).scheme in {"postgres", "postgresql"},
        f"{purpose} needs PostgreSQL; DATABASE_URL is {urlsplit(database_url).scheme}://…",
    )
    require(
        urlsplit(broker_url).scheme == "redis",
        f"{purpose} needs Redis; CELERY_BROKER_URL is {urlsplit(broker_url).scheme}://…",
    )
    postgres_error = _postgres_error(database_url)
    require(
        not postgres_error,
        f"no PostgreSQL at {with_path(database_url, '')} ({postgres_error}); "
        "set DATABASE_URL to a server where this user may create databases",
    )
    redis_error = _redis_error(broker_url)
    require(not redis_error, f"no Redis at {with_path(broker_url, '')} ({redis_error})")

    import psycopg

    run = Services(database_url="", broker_url="", result_url="", database="", admin_url="")
    run.admin_url = database_url
    run.database = f"{prefix}_{run.run_id}"
    run.database_url = with_path(database_url, f"/{run.database}")
    run.redis_dbs = _claim_redis(broker_url, run.run_id)
    run.broker_url = with_path(broker_url, f"/{run.redis_dbs[0]}")
    run.result_url = with_path(broker_url, f"/{run.redis_dbs[1]}")
    try:
        with psycopg.connect(database_url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{run.database}"')
        try:
            yield run
        finally:
            with psycopg.connect(database_url, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{run.database}" WITH (FORCE)')
    finally:
        for number in run.redis_dbs:
            redis_client(with_path(broker_url, f"/{number}")).flushdb()


def _claim_redis(broker_url: str, run_id: str) -> tuple[int, int]:
    """Claim a free pair of Redis databases (another run may be using one)."""
    for broker_db, result_db in REDIS_DB_PAIRS:
        claim = redis_client(with_path(broker_url, f"/{broker_db}"))
        if not claim.set(REDIS_CLAIM_KEY, run_id, nx=True, ex=1800):
            continue
        for key in claim.scan_iter(count=1000):  # leftovers of an interrupted run
            if key != REDIS_CLAIM_KEY.encode():
                claim.delete(key)
        redis_client(with_path(broker_url, f"/{result_db}")).flushdb()
        return broker_db, result_db
    pytest.fail(f"every Redis database pair {REDIS_DB_PAIRS} is claimed by another run")
