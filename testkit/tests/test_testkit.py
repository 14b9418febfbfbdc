"""The test kit's rules: strict mode turns a skip into a failure; waits are bounded; an
isolated run gets its own database and Redis pair and leaves nothing behind."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from qoelab_testkit.prerequisites import require
from qoelab_testkit.processes import Process
from qoelab_testkit.services import REDIS_CLAIM_KEY, isolated_services, redis_client
from qoelab_testkit.waiting import free_port, wait_for


def test_require_skips_locally_and_fails_in_strict_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    require(True, "never raised")
    monkeypatch.delenv("QOELAB_STRICT", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no widget"):
        require(False, "no widget")
    monkeypatch.setenv("QOELAB_STRICT", "1")
    with pytest.raises(pytest.fail.Exception, match=r"strict mode.*no widget"):
        require(False, "no widget")


def test_wait_for_returns_the_value_or_names_what_timed_out() -> None:
    calls = iter([0, 0, 7])
    assert wait_for("a value", lambda: next(calls), timeout=5, interval=0) == 7
    began = time.monotonic()
    with pytest.raises(AssertionError, match=r"timed out after 0.2 s waiting for nothing"):
        wait_for("nothing", lambda: None, timeout=0.2, interval=0.01)
    assert time.monotonic() - began < 5  # bounded: it gave up, it did not hang


def test_free_port_is_bindable() -> None:
    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_process_runs_in_its_own_group_and_is_stopped(tmp_path: Path) -> None:
    process = Process("sleeper", ["sleep", "60"], {"PATH": "/usr/bin:/bin"}, tmp_path).start()
    assert process.alive()
    process.terminate(timeout=5)
    assert not process.alive()
    with pytest.raises(AssertionError, match="sleeper exited"):
        process.check_alive()


def test_isolated_services_create_and_remove_their_own_databases() -> None:
    import psycopg

    with isolated_services("the testkit's own test", prefix="qoelab_testkit") as run:
        assert urlsplit(run.database_url).path == f"/{run.database}"
        with psycopg.connect(run.database_url) as connection:
            assert connection.execute("SELECT current_database()").fetchone() == (run.database,)
        broker = redis_client(run.broker_url)
        assert broker.get(REDIS_CLAIM_KEY) == run.run_id.encode()
        broker.set("left-over", "1")
    with psycopg.connect(run.admin_url) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (run.database,)
        ).fetchone()
    assert exists is None
    assert redis_client(run.broker_url).dbsize() == 0  # claim released, data gone
