"""The agent's view of the kernel: its backend calls with errors translated for the API,
and the read-back of what is installed per direction, checked against the agent's tree.

Nothing is assumed from what the agent believes it installed: every answer comes from
reading the kernel (or the dry-run backend's model of it) back.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from typing import Any

from netem_profile import DIRECTION_LABELS, DIRECTIONS

from netem_agent.backends import Backend, BackendError, QdiscState
from netem_agent.config import Topology
from netem_agent.errors import KernelError, UnknownInterface
from netem_agent.netem import NetemParams, profile_from_params
from netem_agent.rtnl import INGRESS_HANDLE, TC_H_INGRESS, TC_H_ROOT, fmt_handle
from netem_agent.shaping_plan import (
    GAME_CLASS,
    OTHER_BAND_PRIOMAP,
    REDIRECT_PRIO,
    ROOT_HANDLE,
    ShapingPoint,
    flow_filter_keys,
    is_ours,
    netem_location,
    shaping_points,
)


class KernelView:
    """Backend calls and read-back for one topology."""

    def __init__(self, topology: Topology, backend: Backend) -> None:
        self.topology = topology
        self.backend = backend
        self.points = shaping_points(topology)

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` with a backend failure turned into the API's error."""
        try:
            return fn(*args)
        except BackendError as e:
            if e.errno == errno.ENODEV:
                raise UnknownInterface(str(e)) from e
            raise KernelError(str(e), {"errno": e.errno}) from e

    def interfaces_present(self) -> bool:
        return all(self.backend.exists(i) for i in self.topology.interfaces())

    def check_interfaces(self) -> None:
        missing = [i for i in self.topology.interfaces() if not self.backend.exists(i)]
        if missing:
            raise UnknownInterface(
                f"interface(s) {', '.join(missing)} do not exist",
                {"missing": missing, "available": sorted(x.name for x in self.backend.links())},
            )

    def root(self, dev: str) -> QdiscState | None:
        q: QdiscState
        for q in self.call(self.backend.qdiscs, dev):
            if q.parent == TC_H_ROOT:
                return q
        return None

    def ingress(self, dev: str) -> QdiscState | None:
        q: QdiscState
        for q in self.call(self.backend.qdiscs, dev):
            if q.parent == TC_H_INGRESS or q.handle == INGRESS_HANDLE:
                return q
        return None

    def ingress_points(self) -> list[ShapingPoint]:
        return [p for p in self.points.values() if p.attach == "ingress"]

    def read_back(self, distribution: Callable[[str], str]) -> dict[str, Any]:
        """What is installed, per direction, read from the kernel. ``complete`` tells
        whether the agent's full tree is present. ``distribution(direction)`` names the
        jitter distribution last sent (the kernel does not dump it)."""
        parent, handle = netem_location(self.topology)
        result: dict[str, Any] = {"complete": True, "directions": {}, "problems": []}
        devs = sorted(
            {p.dev for p in self.points.values()} | {p.iface for p in self.points.values()}
        )
        snapshot = self.call(self.backend.qdisc_snapshot, devs)
        for name in DIRECTIONS:
            point = self.points[name]
            entry: dict[str, Any] = point.describe()
            problems: list[str] = []
            present = point.dev in snapshot
            qdiscs: list[QdiscState] = snapshot.get(point.dev, [])
            if not present:
                problems.append(f"device {point.dev} does not exist")
            elif point.attach == "ingress":
                link = self.backend.link(point.dev)
                if link is None or not link.up:
                    problems.append(f"device {point.dev} is down")
            root = next((q for q in qdiscs if q.parent == TC_H_ROOT), None)
            entry["root_qdisc"] = root.describe() if root else None
            netem = next(
                (
                    q
                    for q in qdiscs
                    if q.handle == handle and q.kind == "netem" and q.parent == parent
                ),
                None,
            )
            if not is_ours(root):
                problems.append(f"root qdisc of {point.dev} is not the agent's")
            if self.topology.flow is not None and present:
                problems += self._check_flow_filters(name, point, root, entry)
            if point.attach == "ingress":
                problems += self.check_redirect(point, snapshot.get(point.iface, []))
            if netem is None or netem.netem is None:
                problems.append(f"no agent netem qdisc on {point.dev}")
                entry["netem"] = None
                entry["profile"] = None
            else:
                entry["netem"] = {
                    "handle": fmt_handle(netem.handle),
                    "parent": fmt_handle(netem.parent),
                    "params": netem.netem.to_dict(),
                }
                dist = distribution(name)
                entry["profile"] = profile_from_params(netem.netem, dist).to_dict()
                if netem.netem.foreign:
                    problems.append(
                        f"netem on {point.dev} has settings the agent never "
                        f"installs: {list(netem.netem.foreign)}"
                    )
            entry["problems"] = problems
            if problems:
                result["complete"] = False
                result["problems"] += [f"{DIRECTION_LABELS[name]}: {p}" for p in problems]
            result["directions"][name] = entry
        return result

    def _check_flow_filters(
        self, name: str, point: ShapingPoint, root: QdiscState | None, entry: dict[str, Any]
    ) -> list[str]:
        """The prio root's bands and the u32 filters steering the game flow into band 1."""
        assert self.topology.flow is not None
        problems = []
        if (
            root is not None
            and root.kind == "prio"
            and root.handle == ROOT_HANDLE
            and root.prio != {"bands": 2, "priomap": OTHER_BAND_PRIOMAP}
        ):
            problems.append(f"prio root of {point.dev} has unexpected bands/priomap")
        filters = self.call(self.backend.filters, point.dev, ROOT_HANDLE)
        got = sorted((f.kind, f.classid or 0, tuple(f.keys)) for f in filters)
        want = sorted(
            ("u32", GAME_CLASS, tuple(k)) for k in flow_filter_keys(self.topology.flow, name)
        )
        entry["flow_filters"] = len(filters)
        if got != want:
            problems.append(f"flow filters on {point.dev} differ from the configuration")
        return problems

    def check_redirect(
        self, point: ShapingPoint, qdiscs: list[QdiscState] | None = None
    ) -> list[str]:
        """Problems of the ingress→IFB redirect of ``point`` (none when it is in place)."""
        if qdiscs is None:
            qdiscs = self.call(self.backend.qdisc_snapshot, [point.iface]).get(point.iface, [])
        ingress = next((q for q in qdiscs if q.parent == TC_H_INGRESS), None)
        if ingress is None:
            return [f"no ingress qdisc on {point.iface}"]
        ifb = self.backend.link(point.dev)
        filters = self.call(self.backend.filters, point.iface, INGRESS_HANDLE)
        ok = [
            f
            for f in filters
            if f.kind == "matchall"
            and f.prio == REDIRECT_PRIO
            and ifb is not None
            and f.redirect_ifindex == ifb.index
        ]
        if not ok:
            return [f"no redirect {point.iface} ingress → {point.dev}"]
        return []

    def ingress_is_ours(self, p: ShapingPoint, recorded: list[str]) -> bool:
        """The ingress qdisc of ``p.iface`` is the agent's: recorded in the state file, or
        carrying nothing but the agent's redirect into its IFB device."""
        if p.iface in recorded:
            return True
        filters = self.call(self.backend.filters, p.iface, INGRESS_HANDLE)
        ifb = self.backend.link(p.dev)
        return (
            bool(filters)
            and ifb is not None
            and all(
                f.kind == "matchall" and f.prio == REDIRECT_PRIO and f.redirect_ifindex == ifb.index
                for f in filters
            )
        )


def mismatch(params: dict[str, NetemParams], state: dict[str, Any]) -> list[str]:
    """Why the read-back ``state`` is not the requested ``params`` (empty when it is)."""
    out = list(state["problems"])
    for name in DIRECTIONS:
        entry = state["directions"][name]
        got = entry.get("netem")
        if got is None:
            continue
        got_params = NetemParams.from_dict(got["params"])
        if got_params != params[name]:
            want = params[name].to_dict()
            diff = {
                k: {"expected": want[k], "installed": v}
                for k, v in got_params.to_dict().items()
                if want[k] != v
            }
            out.append(f"{DIRECTION_LABELS[name]}: {json.dumps(diff)}")
    return out
