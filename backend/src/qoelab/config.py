"""Reading QoE Lab's configuration from environment variables.

Every setting that differs between a laptop demo, CI and a lab server comes from the
environment; a malformed value raises ``ImproperlyConfigured`` naming the variable, so
start-up fails with one clear line instead of a stack trace deep inside a driver.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

SUPPORTED_DATABASE_ENGINES = {
    "django.db.backends.postgresql": "PostgreSQL",
    "django.db.backends.sqlite3": "SQLite",
}


def env_bool(name: str, default: bool) -> bool:
    """Parse a boolean variable: 1/true/yes/on and 0/false/no/off (any case)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no).")


def env_int(name: str, default: int, *, minimum: int, maximum: int) -> int:
    """Parse an integer variable within ``[minimum, maximum]`` (blank = ``default``)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.") from None
    if not minimum <= value <= maximum:
        raise ImproperlyConfigured(f"{name}={value} is outside {minimum}..{maximum}.")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """Parse a comma-separated list variable; blanks are dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# SQLite serves the demo, where the console and the participant screen both poll (and
# write: timers, lease renewals) every second. A deferred transaction that reads and then
# writes fails at once with "database is locked" when another connection wrote in between,
# whatever the busy timeout; BEGIN IMMEDIATE takes the write lock up front so writers queue
# on the timeout instead. WAL lets readers go on while one connection writes.
SQLITE_OPTIONS: dict[str, Any] = {
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}


def database_config(default_sqlite_path: Path) -> dict[str, Any]:
    """Django DATABASES['default'] from ``DATABASE_URL``, or an SQLite file when unset."""
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        default_sqlite_path.parent.mkdir(parents=True, exist_ok=True)
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(default_sqlite_path),
            "OPTIONS": dict(SQLITE_OPTIONS),
        }
    try:
        config: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=60))
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"DATABASE_URL={redact_url(url)!r} is not a database URL ({exc}). "
            "Expected e.g. postgres://user:password@127.0.0.1:5432/qoelab "
            "or sqlite:////absolute/path.sqlite3"
        ) from exc
    if config.get("ENGINE") not in SUPPORTED_DATABASE_ENGINES:
        raise ImproperlyConfigured(
            f"DATABASE_URL={redact_url(url)!r} selects {config.get('ENGINE')!r}; "
            "QoE Lab supports PostgreSQL (postgres://) and SQLite (sqlite://)."
        )
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config["OPTIONS"] = {**SQLITE_OPTIONS, **config.get("OPTIONS", {})}
        config["CONN_MAX_AGE"] = 0
    return config


def redact_url(url: str) -> str:
    """The URL with its password replaced by ``***`` (safe for logs and /healthz)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def describe_database(config: dict[str, Any]) -> str:
    """A human description such as ``PostgreSQL database 'qoelab' at 127.0.0.1:5432``."""
    engine = SUPPORTED_DATABASE_ENGINES.get(str(config.get("ENGINE")), str(config.get("ENGINE")))
    if config.get("ENGINE") == "django.db.backends.sqlite3":
        return f"{engine} file {config.get('NAME')}"
    host = config.get("HOST") or "localhost"
    port = config.get("PORT") or "default port"
    return f"{engine} database {config.get('NAME')!r} at {host}:{port}"
