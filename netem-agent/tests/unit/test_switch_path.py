"""The per-switch path: interface names resolved once per request, one reading of each
clock, the lease hook and the one-write log handler. Without a kernel."""

from __future__ import annotations

import fcntl
import logging
import os
import struct
import threading
from pathlib import Path
from typing import Any

import pytest
from netem_agent import rtnl
from netem_agent.agent import Agent
from netem_agent.backends import DryRunBackend, NetlinkBackend
from netem_agent.cli import LineHandler
from netem_agent.config import make_topology
from netem_agent.server import AgentHTTPServer
from netem_agent.state_store import StateStore
from netem_profile import parse_profile

BRIDGE = {"mode": "bridge", "client_iface": "eth-c", "server_iface": "eth-s"}
P80 = parse_profile({"upstream": {"delay_ms": 80}, "downstream": {"delay_ms": 40}})
P30 = parse_profile({"upstream": {"delay_ms": 30}, "downstream": {"delay_ms": 30}})
HDR = struct.Struct("=IHHII")


def message(rtype: int, seq: int, payload: bytes, flags: int = 0) -> bytes:
    out = HDR.pack(HDR.size + len(payload), rtype, flags, seq, 0) + payload
    return out + b"\0" * ((4 - len(out) % 4) % 4)


def ack(seq: int, code: int = 0) -> bytes:
    return message(rtnl.NLMSG_ERROR, seq, struct.pack("=i", code) + b"\0" * 16)


def test_pinned_scope_resolves_each_name_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bytes] = []
    real = fcntl.ioctl

    def counting(fd: int, request: int, arg: Any) -> Any:
        calls.append(bytes(arg[:16]).rstrip(b"\0"))
        return real(fd, request, arg)

    monkeypatch.setattr(fcntl, "ioctl", counting)  # the backend calls fcntl.ioctl
    backend = NetlinkBackend()
    try:
        assert backend.exists("lo") and backend.exists("lo")
        assert len(calls) == 2  # outside a scope: every time
        calls.clear()
        with backend.pinned():
            assert backend.exists("lo")
            assert backend.qdisc_snapshot(["lo"]).keys() == {"lo"}
            assert not backend.exists("no-such-if0")
            assert not backend.exists("no-such-if0")  # misses are not remembered
            with backend.pinned():  # nested: the same scope
                backend.exists("lo")
        assert calls == [b"lo", b"no-such-if0", b"no-such-if0"]
        calls.clear()
        backend.exists("lo")  # the scope ended: looked up again
        assert calls == [b"lo"]
        # another thread's look-ups are not in this thread's scope
        with backend.pinned():
            backend.exists("lo")
            t = threading.Thread(target=backend.exists, args=("lo",))
            t.start()
            t.join()
            backend.exists("lo")
        assert calls == [b"lo", b"lo", b"lo"]
    finally:
        backend._nl.close()
        backend._ioctl.close()


class Counting:
    def __init__(self, start: float) -> None:
        self.t = start
        self.calls = 0

    def __call__(self) -> float:
        self.calls += 1
        return self.t


def make(tmp_path: Path, clock: Counting, wall: Counting) -> Agent:
    topology = make_topology(dict(BRIDGE))
    return Agent(
        topology,
        DryRunBackend(topology.interfaces()),
        StateStore(tmp_path / "state"),
        clock=clock,
        wall=wall,
    )


def test_a_switch_reads_each_clock_once_and_reports_the_lease_from_that_reading(
    tmp_path: Path,
) -> None:
    clock, wall = Counting(1000.0), Counting(1_700_000_000.0)
    agent = make(tmp_path, clock, wall)
    agent.apply(P80, 30)
    clock.calls = wall.calls = 0
    out = agent.apply(P30, 30)
    assert out["mode"] == "switch"
    assert (clock.calls, wall.calls) == (1, 1)
    assert out["lease_seconds_remaining"] == 30
    assert out["applied_at"] == "2023-11-14T22:13:20.000Z"
    assert out["lease_expires_at"] == "2023-11-14T22:13:50.000Z"
    assert agent.events[-1]["time"] == "2023-11-14T22:13:20.000Z"
    assert agent.store.read()["lease_expires_at"] == 1_700_000_030.0  # type: ignore[index]


def test_the_lease_hook_gets_each_new_deadline_under_the_lock(tmp_path: Path) -> None:
    clock, wall = Counting(1000.0), Counting(1_700_000_000.0)
    agent = make(tmp_path, clock, wall)
    seen: list[tuple[float | None, bool]] = []
    agent.on_lease_change = lambda d: seen.append((d, agent.lock._is_owned()))  # type: ignore[attr-defined]
    agent.apply(P80, 30)
    clock.t += 5
    agent.renew(60)
    agent.apply(P30, None)
    assert seen == [(1030.0, True), (1065.0, True), (None, True)]


def test_server_wakes_the_watcher_only_for_an_earlier_end(tmp_path: Path) -> None:
    clock, wall = Counting(1000.0), Counting(1_700_000_000.0)
    agent = make(tmp_path, clock, wall)
    httpd = AgentHTTPServer(("127.0.0.1", 0), agent, "t" * 20)
    try:

        class Watcher:
            looks_at: float | None = 1060.0

        httpd.watcher = Watcher()  # type: ignore[assignment]
        agent.apply(P80, 300)  # ends at 1300, after the watcher's next look
        assert not httpd.lease_changed.is_set()
        agent.apply(P80, 30)  # ends at 1030, before it
        assert httpd.lease_changed.is_set()
        httpd.lease_changed.clear()
        Watcher.looks_at = None  # the watcher sleeps until woken
        agent.apply(P80, None)  # no deadline: nothing to wake for
        assert not httpd.lease_changed.is_set()
        agent.apply(P80, 300)
        assert httpd.lease_changed.is_set()
    finally:
        httpd.server_close()


def test_line_handler_writes_each_record_with_one_write() -> None:
    r, w = os.pipe()
    try:
        handler = LineHandler(w)
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        logger = logging.getLogger("netem_agent.test_line_handler")
        logger.propagate = False
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.info("applied %s", {"mode": "switch"})
        logger.debug("not shown")
        logger.warning("é\udcff")  # unencodable text is escaped, not an error
        logger.removeHandler(handler)
        os.close(w)
        w = -1
        with os.fdopen(r, "rb") as f:
            r = -1
            data = f.read()
        assert data == b"INFO applied {'mode': 'switch'}\nWARNING \xc3\xa9\\udcff\n"
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)
