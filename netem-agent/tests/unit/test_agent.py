"""Agent logic against the dry-run backend: topology, build/switch, verification,
restore, ownership, leases (fake clock) and crash recovery."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from netem_agent.agent import Agent
from netem_agent.backends import BackendError, DryRunBackend, QdiscState
from netem_agent.config import FlowFilter, make_topology
from netem_agent.errors import Conflict, KernelError, UnknownInterface, VerificationFailed
from netem_agent.netem import NetemParams
from netem_agent.rtnl import TC_H_ROOT
from netem_agent.shaping_plan import ROOT_HANDLE, flow_filter_keys, shaping_points
from netem_agent.state_store import StateStore
from netem_profile import parse_profile

BRIDGE = {"mode": "bridge", "client_iface": "eth-c", "server_iface": "eth-s"}
P80 = parse_profile({"upstream": {"delay_ms": 80}, "downstream": {"delay_ms": 40, "loss_pct": 1}})
P120 = parse_profile({"upstream": {"delay_ms": 120, "jitter_ms": 10}})


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def make(
    tmp_path: Path,
    topo: dict[str, Any] | None = None,
    backend: DryRunBackend | None = None,
    clock: Clock | None = None,
) -> Agent:
    topology = make_topology(dict(topo or BRIDGE))
    backend = backend or DryRunBackend(topology.interfaces())
    return Agent(
        topology,
        backend,
        StateStore(tmp_path / "state"),
        clock=clock or Clock(),
        wall=lambda: 1_700_000_000.0,
    )


def ops(agent: Agent) -> list[dict[str, Any]]:
    assert isinstance(agent.backend, DryRunBackend)
    return agent.backend.operations


def test_bridge_directions_are_not_swapped() -> None:
    pts = shaping_points(make_topology(dict(BRIDGE)))
    # server→client leaves towards the client; client→server leaves towards the server
    assert (pts["downstream"].dev, pts["downstream"].attach) == ("eth-c", "egress")
    assert (pts["upstream"].dev, pts["upstream"].attach) == ("eth-s", "egress")


@pytest.mark.parametrize(
    "role,egress,ingress",
    [("client", "upstream", "downstream"), ("server", "downstream", "upstream")],
)
def test_single_mode_uses_ifb_for_the_incoming_direction(
    role: str, egress: str, ingress: str
) -> None:
    pts = shaping_points(make_topology({"mode": "single", "iface": "eth0", "role": role}))
    assert pts[egress].dev == "eth0" and pts[egress].attach == "egress"
    assert pts[ingress].dev == "qoeifb0" and pts[ingress].attach == "ingress"
    assert pts[ingress].iface == "eth0"


def test_first_apply_builds_then_switches_in_place(tmp_path: Path) -> None:
    agent = make(tmp_path)
    r1 = agent.apply(P80, 30)
    assert r1["mode"] == "build"
    assert r1["installed"]["upstream"]["delay_ms"] == 80
    assert r1["installed"]["downstream"]["loss_pct"] == 1
    built = [(o["op"], o["dev"], o["handle"], o["kind"]) for o in ops(agent)]
    assert built == [
        ("qdisc_add", "eth-s", "4e45:", "netem"),
        ("qdisc_add", "eth-c", "4e45:", "netem"),
    ]
    n = len(ops(agent))
    r2 = agent.apply(P120, 30)
    assert r2["mode"] == "switch"
    switched = ops(agent)[n:]
    # only in-place changes: never a delete or a re-create while switching
    assert [o["op"] for o in switched] == ["qdisc_change", "qdisc_change"]
    assert switched[0]["params"]["latency_ns"] == 120_000_000
    assert switched[0]["distribution"] == "normal"
    assert switched[1]["params"]["latency_ns"] == 0
    assert r2["installed"]["downstream"]["loss_pct"] == 0


def test_response_shape(tmp_path: Path) -> None:
    r = make(tmp_path).apply(P80, 30)
    assert r["backend"] == "dry-run"
    assert r["lease_expires_at"] == "2023-11-14T22:13:50.000Z"
    assert r["applied_at"] == "2023-11-14T22:13:20.000Z"
    assert r["kernel"]["upstream"]["direction"] == "client→server"
    assert r["kernel"]["downstream"]["direction"] == "server→client"


def test_unknown_interface_changes_nothing(tmp_path: Path) -> None:
    backend = DryRunBackend(["eth-c"])
    agent = make(tmp_path, backend=backend)
    with pytest.raises(UnknownInterface) as exc:
        agent.apply(P80, 30)
    assert exc.value.status == 404 and "eth-s" in str(exc.value)
    assert backend.operations == []


def test_foreign_root_qdisc_is_not_taken_over(tmp_path: Path) -> None:
    backend = DryRunBackend(["eth-c", "eth-s"])
    backend.prio("add", "eth-c", TC_H_ROOT, 0x10000, 3, [0] * 16)  # someone else's
    backend.operations.clear()
    agent = make(tmp_path, backend=backend)
    with pytest.raises(Conflict, match="did not install"):
        agent.apply(P80, 30)
    assert backend.operations == []
    assert [q.kind for q in backend.qdiscs("eth-c")] == ["prio"]


def test_verification_mismatch_is_an_error_and_restores(tmp_path: Path) -> None:
    backend = DryRunBackend(["eth-c", "eth-s"])

    def tamper(dev: str, q: QdiscState) -> QdiscState:
        if dev == "eth-s" and q.netem is not None:  # the kernel "rounded" the delay
            q.netem = NetemParams(**{**q.netem.__dict__, "latency_ns": 79_999_936})
        return q

    backend.tamper = tamper
    agent = make(tmp_path, backend=backend)
    with pytest.raises(VerificationFailed) as exc:
        agent.apply(P80, 30)
    assert exc.value.status == 502
    detail = exc.value.detail
    assert detail["expected"]["upstream"]["latency_ns"] == 80_000_000
    assert (
        detail["installed"]["directions"]["upstream"]["netem"]["params"]["latency_ns"] == 79_999_936
    )
    assert "client→server" in detail["mismatch"][0]
    backend.tamper = None
    assert [q.kind for q in backend.qdiscs("eth-s")] == ["noqueue"]
    assert agent.profile is None


def test_failed_build_is_rolled_back(tmp_path: Path) -> None:
    backend = DryRunBackend(["eth-c", "eth-s"])
    agent = make(tmp_path, backend=backend)
    # the second qdisc_add (downstream, eth-c) fails
    calls = {"n": 0}
    real = backend.netem

    def flaky(verb: str, dev: str, *a: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise BackendError("add netem on eth-c: No such file or directory", errno_=2)
        real(verb, dev, *a)

    backend.netem = flaky  # type: ignore[method-assign]
    with pytest.raises(KernelError):
        agent.apply(P80, 30)
    assert [q.kind for q in backend.qdiscs("eth-s")] == ["noqueue"]
    assert agent.store.read() is None


def test_clear_removes_only_the_agents_objects(tmp_path: Path) -> None:
    backend = DryRunBackend(["eth-c", "eth-s", "eth-other"])
    backend.netem("add", "eth-other", TC_H_ROOT, 0x10000, NetemParams(), None)  # not ours
    agent = make(tmp_path, backend=backend)
    agent.apply(P80, 30)
    result = agent.clear()
    assert result["restored"]
    assert sorted(result["removed"]) == ["netem 4e45: on eth-c", "netem 4e45: on eth-s"]
    assert [q.kind for q in backend.qdiscs("eth-other")] == ["netem"]
    assert [(o["op"], o["dev"]) for o in backend.operations if o["op"] == "qdisc_del"] == [
        ("qdisc_del", "eth-c"),
        ("qdisc_del", "eth-s"),
    ]


def test_single_mode_build_and_restore(tmp_path: Path) -> None:
    agent = make(tmp_path, {"mode": "single", "iface": "eth0", "role": "client"})
    r = agent.apply(P80, 30)
    assert r["kernel"]["downstream"]["attach"] == "ingress via qoeifb0"
    seq = [(o["op"], o.get("dev", o.get("name")), o.get("kind")) for o in ops(agent)]
    # the IFB first, the ingress redirect last (packets reach the IFB only once shaped)
    assert seq[0] == ("link_add", "qoeifb0", "ifb")
    assert seq[-2:] == [("qdisc_add", "eth0", "ingress"), ("filter_add", "eth0", "matchall")]
    res = agent.clear()
    assert res["removed"] == ["ingress qdisc on eth0", "netem 4e45: on eth0", "ifb device qoeifb0"]
    assert agent.backend.link("qoeifb0") is None


def test_flow_filter_tree(tmp_path: Path) -> None:
    topo = dict(BRIDGE, flow={"server_addr": "10.0.2.2", "ports": [9000], "protocol": "udp"})
    agent = make(tmp_path, topo)
    r = agent.apply(P80, 30)
    assert r["complete"], r["problems"]
    assert r["kernel"]["upstream"]["netem"]["handle"] == "4e46:"
    assert r["kernel"]["upstream"]["netem"]["parent"] == "4e45:1"
    n = len(ops(agent))
    agent.apply(P120, 30)
    assert [o["op"] for o in ops(agent)[n:]] == ["qdisc_change", "qdisc_change"]


def test_flow_filter_keys_per_direction() -> None:
    f = FlowFilter("10.0.2.2", (9000,), "udp")
    (up,) = flow_filter_keys(f, "upstream")
    (down,) = flow_filter_keys(f, "downstream")
    assert (0x0A000202, 0xFFFFFFFF, 16) in up  # to the server
    assert (9000, 0x0000FFFF, 20) in up  # destination port
    assert (0x0A000202, 0xFFFFFFFF, 12) in down  # from the server
    assert (9000 << 16, 0xFFFF0000, 20) in down  # source port
    assert (17 << 16, 0x00FF0000, 8) in up
    assert len(flow_filter_keys(FlowFilter("10.0.2.2", (1, 2), "any"), "upstream")) == 4
    assert flow_filter_keys(FlowFilter("10.0.2.2"), "upstream") == [[(0x0A000202, 0xFFFFFFFF, 16)]]


def test_tree_removed_behind_the_agents_back_is_rebuilt(tmp_path: Path) -> None:
    agent = make(tmp_path)
    agent.apply(P80, 30)
    agent.backend.qdisc_del("eth-c", TC_H_ROOT, ROOT_HANDLE, "netem")  # an operator's tc
    r = agent.apply(P120, 30)
    assert r["mode"] == "build" and r["complete"]


# --- leases (fake clock) -----------------------------------------------------------------


def test_lease_expiry_restores(tmp_path: Path) -> None:
    clock = Clock()
    agent = make(tmp_path, clock=clock)
    agent.apply(P80, 10)
    clock.t += 9.9
    assert not agent.check_lease()
    assert agent.profile is not None
    clock.t += 0.2
    assert agent.check_lease()
    assert agent.profile is None
    assert [q.kind for q in agent.backend.qdiscs("eth-c")] == ["noqueue"]
    assert agent.store.read() is None


def test_renew_extends_the_lease(tmp_path: Path) -> None:
    clock = Clock()
    agent = make(tmp_path, clock=clock)
    agent.apply(P80, 10)
    for _ in range(5):
        clock.t += 8
        agent.renew(10)
        assert not agent.check_lease()
    assert agent.seconds_to_expiry() == pytest.approx(10)
    clock.t += 10.5
    assert agent.check_lease()
    with pytest.raises(Conflict):
        agent.renew(10)


def test_no_lease_holds_until_clear(tmp_path: Path) -> None:
    clock = Clock()
    agent = make(tmp_path, clock=clock)
    agent.apply(P80, None)
    clock.t += 10**6
    assert not agent.check_lease()
    assert agent.profile is not None


@pytest.mark.parametrize("lease", [0, -1, 10**6])
def test_lease_out_of_range(tmp_path: Path, lease: float) -> None:
    with pytest.raises(Conflict):
        make(tmp_path).apply(P80, lease)


# --- crash recovery ------------------------------------------------------------------------


def test_restart_after_crash_restores(tmp_path: Path) -> None:
    backend = DryRunBackend(["eth0"])
    topo = {"mode": "single", "iface": "eth0"}
    first = make(tmp_path, topo, backend=backend)
    first.apply(P80, 30)
    assert first.store.read() is not None
    # "kill -9": the object is gone, kernel state and state file remain
    second = make(tmp_path, topo, backend=backend)
    result = second.recover()
    assert result is not None and result["restored"]
    assert backend.link("qoeifb0") is None
    assert [q.kind for q in backend.qdiscs("eth0")] == ["noqueue"]
    assert second.store.read() is None
    assert second.recover() is None  # nothing left to do


def test_recovery_without_state_file_finds_objects_by_handle(tmp_path: Path) -> None:
    backend = DryRunBackend(["eth-c", "eth-s"])
    make(tmp_path, backend=backend).apply(P80, 30)
    (tmp_path / "state" / "state.json").unlink()
    result = make(tmp_path, backend=backend).recover()
    assert result is not None and len(result["removed"]) == 2


def test_state_is_recorded_before_the_kernel_is_touched(tmp_path: Path) -> None:
    backend = DryRunBackend(["eth-c", "eth-s"])
    agent = make(tmp_path, backend=backend)
    seen = []
    real = backend.netem

    def spy(*a: Any) -> None:
        seen.append(agent.store.read())
        real(*a)

    backend.netem = spy  # type: ignore[method-assign]
    agent.apply(P80, 30)
    assert seen[0] is not None
    assert {r["dev"] for r in seen[0]["owned"]["roots"]} == {"eth-c", "eth-s"}
