"""The agent: builds its qdisc tree once, switches profiles in place, verifies by reading
the kernel back, and restores the interfaces on lease expiry, signals and start-up.

Ownership: the agent's objects are recognised by handle and kind, never by text —
root qdisc ``4e45:`` (netem, or prio when a flow filter is configured), netem child
``4e46:`` under ``4e45:1``, the ``ingress`` qdisc it created (recorded in the state file)
and its IFB device (recorded, and of link kind ``ifb``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import logging
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netem_profile import DIRECTION_LABELS, DIRECTIONS, DirectionProfile, Profile

from netem_agent.backends import Backend, BackendError, QdiscState
from netem_agent.config import FlowFilter, Topology
from netem_agent.netem import NetemParams, params_from_profile, profile_from_params
from netem_agent.rtnl import INGRESS_HANDLE, TC_H_INGRESS, TC_H_ROOT, fmt_handle

log = logging.getLogger("netem_agent")

ROOT_MAJOR = 0x4E45
ROOT_HANDLE = ROOT_MAJOR << 16  # 4e45:
CHILD_HANDLE = 0x4E46 << 16  # 4e46: (netem under the prio root when a flow filter is used)
GAME_CLASS = ROOT_HANDLE | 1  # 4e45:1 — band for the game flow
OTHER_BAND_PRIOMAP = [1] * 16  # everything else → band 2 (4e45:2, plain fifo)
REDIRECT_PRIO = 0x4E45  # preference of the ingress→IFB redirect filter
STATE_VERSION = 1


# --- errors ----------------------------------------------------------------------------


class AgentError(Exception):
    status = 500
    code = "internal error"

    def __init__(self, message: str, detail: Any = None) -> None:
        super().__init__(message)
        self.detail = detail

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.code, "message": str(self), "detail": self.detail}


class UnknownInterface(AgentError):
    status = 404
    code = "unknown interface"


class Conflict(AgentError):
    status = 409
    code = "conflict"


class VerificationFailed(AgentError):
    status = 502
    code = "verification failed"


class KernelError(AgentError):
    status = 503
    code = "kernel operation failed"


# --- plan ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShapingPoint:
    direction: str  # upstream | downstream
    dev: str  # device whose egress carries the netem qdisc
    iface: str  # the real interface the direction crosses
    attach: str  # "egress" or "ingress" (then dev is the IFB device)

    def describe(self) -> dict[str, Any]:
        return {
            "direction": DIRECTION_LABELS[self.direction],
            "interface": self.iface,
            "attach": self.attach if self.attach == "egress" else f"ingress via {self.dev}",
            "device": self.dev,
        }


def shaping_points(t: Topology) -> dict[str, ShapingPoint]:
    if t.mode == "bridge":
        assert t.client_iface and t.server_iface
        return {
            # server→client leaves the box towards the client
            "downstream": ShapingPoint("downstream", t.client_iface, t.client_iface, "egress"),
            # client→server leaves the box towards the server
            "upstream": ShapingPoint("upstream", t.server_iface, t.server_iface, "egress"),
        }
    assert t.iface
    outgoing = "upstream" if t.role == "client" else "downstream"
    incoming = "downstream" if t.role == "client" else "upstream"
    return {
        outgoing: ShapingPoint(outgoing, t.iface, t.iface, "egress"),
        incoming: ShapingPoint(incoming, t.ifb_name, t.iface, "ingress"),
    }


IPPROTO = {"udp": 17, "tcp": 6}


def flow_filter_keys(flow: FlowFilter, direction: str) -> list[list[tuple[int, int, int]]]:
    """u32 key sets (value, mask, offset) — one filter per protocol/port — for IPv4.

    client→server packets go *to* the server address/ports, server→client packets come
    *from* them. Port matches require a 20-byte IP header and a first fragment.
    """
    addr = struct.unpack("!I", socket.inet_aton(flow.server_addr))[0]
    addr_key = (addr, 0xFFFFFFFF, 16 if direction == "upstream" else 12)
    protos = (
        [IPPROTO[flow.protocol]] if flow.protocol != "any" else ([17, 6] if flow.ports else [None])
    )
    out = []
    for proto in protos:
        base = [addr_key]
        if proto is not None:
            base.append((proto << 16, 0x00FF0000, 8))
        if not flow.ports:
            out.append(sorted(base))
            continue
        for port in flow.ports:
            keys = [*base, (0x05000000, 0x0F000000, 0), (0, 0x00001FFF, 4)]
            if direction == "upstream":
                keys.append((port, 0x0000FFFF, 20))
            else:
                keys.append((port << 16, 0xFFFF0000, 20))
            out.append(sorted(keys))
    return out


# --- state file --------------------------------------------------------------------------


class StateStore:
    """Crash-recovery record: written *before* the kernel is touched."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = Path(state_dir)
        self.path = self.dir / "state.json"

    def read(self) -> dict[str, Any] | None:
        try:
            data: dict[str, Any] = json.loads(self.path.read_text("utf-8"))
            return data
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            log.warning("ignoring unreadable state file %s: %s", self.path, e)
            return None

    def write(self, record: dict[str, Any], durable: bool = True) -> None:
        """Atomic replace. ``durable`` also fsyncs (needed when ownership changes)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(record, separators=(",", ":")))
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, self.path)
        if not durable:
            return
        try:
            fd = os.open(self.dir, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError:
            pass

    def clear(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return (
        dt.datetime.fromtimestamp(ts, dt.UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


# --- the agent --------------------------------------------------------------------------


class Agent:
    def __init__(
        self,
        topology: Topology,
        backend: Backend,
        store: StateStore,
        *,
        default_lease: float = 30.0,
        max_lease: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.topology = topology
        self.backend = backend
        self.store = store
        self.default_lease = default_lease
        self.max_lease = max_lease
        self.clock = clock
        self.wall = wall
        self.lock = threading.RLock()
        self.points = shaping_points(topology)
        self.profile: Profile | None = None
        self.applied_at: float | None = None
        self.lease_deadline: float | None = None  # monotonic; None = hold until cleared
        self.lease_expires_wall: float | None = None
        self.last_restore: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self._tree_ok = False  # the full tree was verified by the last apply
        self._record_cache: dict[str, Any] | None = None

    # --- helpers ---------------------------------------------------------------------
    def _event(self, kind: str, **kw: Any) -> None:
        self.events.append({"time": iso(self.wall()), "event": kind, **kw})
        del self.events[:-100]
        log.info("%s %s", kind, kw)

    def _kernel(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except BackendError as e:
            if e.errno == errno.ENODEV:
                raise UnknownInterface(str(e)) from e
            raise KernelError(str(e), {"errno": e.errno}) from e

    def _check_interfaces_quiet(self) -> bool:
        return all(self.backend.exists(i) for i in self.topology.interfaces())

    def _check_interfaces(self) -> None:
        missing = [i for i in self.topology.interfaces() if not self.backend.exists(i)]
        if missing:
            raise UnknownInterface(
                f"interface(s) {', '.join(missing)} do not exist",
                {"missing": missing, "available": sorted(x.name for x in self.backend.links())},
            )

    def _root(self, dev: str) -> QdiscState | None:
        q: QdiscState
        for q in self._kernel(self.backend.qdiscs, dev):
            if q.parent == TC_H_ROOT:
                return q
        return None

    def _ingress(self, dev: str) -> QdiscState | None:
        q: QdiscState
        for q in self._kernel(self.backend.qdiscs, dev):
            if q.parent == TC_H_INGRESS or q.handle == INGRESS_HANDLE:
                return q
        return None

    @staticmethod
    def _is_ours(q: QdiscState | None) -> bool:
        return q is not None and q.handle == ROOT_HANDLE and q.kind in ("netem", "prio")

    def _netem_location(self) -> tuple[int, int]:
        """(parent, handle) of the netem qdisc on each shaping device."""
        if self.topology.flow is None:
            return TC_H_ROOT, ROOT_HANDLE
        return GAME_CLASS, CHILD_HANDLE

    def _ingress_points(self) -> list[ShapingPoint]:
        return [p for p in self.points.values() if p.attach == "ingress"]

    # --- read-back -------------------------------------------------------------------
    def read_back(self) -> dict[str, Any]:
        """What is installed, per direction, read from the kernel. ``complete`` tells
        whether the agent's full tree is present."""
        parent, handle = self._netem_location()
        result: dict[str, Any] = {"complete": True, "directions": {}, "problems": []}
        devs = sorted(
            {p.dev for p in self.points.values()} | {p.iface for p in self.points.values()}
        )
        snapshot = self._kernel(self.backend.qdisc_snapshot, devs)
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
            if not self._is_ours(root):
                problems.append(f"root qdisc of {point.dev} is not the agent's")
            if self.topology.flow is not None and present:
                if (
                    root is not None
                    and root.kind == "prio"
                    and root.handle == ROOT_HANDLE
                    and root.prio != {"bands": 2, "priomap": OTHER_BAND_PRIOMAP}
                ):
                    problems.append(f"prio root of {point.dev} has unexpected bands/priomap")
                filters = self._kernel(self.backend.filters, point.dev, ROOT_HANDLE)
                got = sorted((f.kind, f.classid or 0, tuple(f.keys)) for f in filters)
                want = sorted(
                    ("u32", GAME_CLASS, tuple(k))
                    for k in flow_filter_keys(self.topology.flow, name)
                )
                entry["flow_filters"] = len(filters)
                if got != want:
                    problems.append(f"flow filters on {point.dev} differ from the configuration")
            if point.attach == "ingress":
                problems += self._check_redirect(point, snapshot.get(point.iface, []))
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
                dist = self._distribution(name)
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

    def _check_redirect(
        self, point: ShapingPoint, qdiscs: list[QdiscState] | None = None
    ) -> list[str]:
        if qdiscs is None:
            qdiscs = self._kernel(self.backend.qdisc_snapshot, [point.iface]).get(point.iface, [])
        ingress = next((q for q in qdiscs if q.parent == TC_H_INGRESS), None)
        if ingress is None:
            return [f"no ingress qdisc on {point.iface}"]
        ifb = self.backend.link(point.dev)
        filters = self._kernel(self.backend.filters, point.iface, INGRESS_HANDLE)
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

    def _distribution(self, direction: str) -> str:
        if self.profile is not None:
            return self.profile.direction(direction).jitter_distribution
        rec = self.store.read() or {}
        prof = (rec.get("profile") or {}).get(direction) or {}
        return str(prof.get("jitter_distribution", "normal"))

    # --- apply -------------------------------------------------------------------------
    def _owned_record(self) -> dict[str, Any]:
        return {
            "roots": [
                {"dev": p.dev, "handle": fmt_handle(ROOT_HANDLE)} for p in self.points.values()
            ],
            "ingress": [p.iface for p in self._ingress_points()],
            "ifb": [p.dev for p in self._ingress_points()],
        }

    def _write_record(self, durable: bool = True, **extra: Any) -> None:
        rec = self._record_cache if self._record_cache is not None else (self.store.read() or {})
        rec.update(
            {
                "version": STATE_VERSION,
                "pid": os.getpid(),
                "topology": self.topology.to_dict(),
                "owned": self._owned_record(),
                **extra,
            }
        )
        rec.setdefault("original", {})
        self.store.write(rec, durable=durable)
        self._record_cache = rec

    def _preflight(self) -> dict[str, Any]:
        """Refuse to take over anything the agent could not restore; return originals."""
        original: dict[str, Any] = {}
        for p in self.points.values():
            if p.attach == "ingress":
                ingress = self._ingress(p.iface)
                if ingress is not None and not self._ingress_is_ours(p):
                    raise Conflict(
                        f"{p.iface} already has an ingress qdisc the agent did not install; "
                        "refusing to replace it",
                        {"interface": p.iface, "qdisc": ingress.describe()},
                    )
                link = self.backend.link(p.dev)
                if link is not None and link.kind != "ifb":
                    raise Conflict(
                        f"{p.dev} exists and is not an ifb device",
                        {"device": p.dev, "kind": link.kind},
                    )
                continue
            root = self._root(p.dev)
            if root is not None and not self._is_ours(root) and root.handle != 0:
                raise Conflict(
                    f"{p.dev} has a root qdisc ({root.kind} {fmt_handle(root.handle)}) that the "
                    "agent did not install; refusing to replace it (it could not be restored)",
                    {"interface": p.dev, "qdisc": root.describe()},
                )
            original[p.dev] = root.describe() if root and not self._is_ours(root) else None
        return original

    def _ingress_is_ours(self, p: ShapingPoint) -> bool:
        rec = self.store.read() or {}
        if p.iface in (rec.get("owned") or {}).get("ingress", []):
            return True
        filters = self._kernel(self.backend.filters, p.iface, INGRESS_HANDLE)
        ifb = self.backend.link(p.dev)
        return (
            bool(filters)
            and ifb is not None
            and all(
                f.kind == "matchall" and f.prio == REDIRECT_PRIO and f.redirect_ifindex == ifb.index
                for f in filters
            )
        )

    def _build(self, params: dict[str, NetemParams], profile: Profile) -> None:
        parent, handle = self._netem_location()
        flow = self.topology.flow
        # IFB devices first: if the ifb module is missing nothing has been touched yet
        for p in self._ingress_points():
            if self.backend.link(p.dev) is None:
                self._kernel(self.backend.add_ifb, p.dev)
            self._kernel(self.backend.set_up, p.dev)
        for name in DIRECTIONS:
            p = self.points[name]
            dist = _dist(profile.direction(name))
            if flow is None:
                self._kernel(
                    self.backend.netem, "add", p.dev, TC_H_ROOT, ROOT_HANDLE, params[name], dist
                )
            else:
                self._kernel(
                    self.backend.prio, "add", p.dev, TC_H_ROOT, ROOT_HANDLE, 2, OTHER_BAND_PRIOMAP
                )
                self._kernel(self.backend.netem, "add", p.dev, parent, handle, params[name], dist)
                for i, keys in enumerate(flow_filter_keys(flow, name), start=1):
                    self._kernel(self.backend.filter_u32, p.dev, ROOT_HANDLE, i, GAME_CLASS, keys)
        # the ingress redirect last: packets only reach the IFB once its tree is in place
        for p in self._ingress_points():
            if self._ingress(p.iface) is None:
                self._kernel(self.backend.ingress, p.iface)
            if self._check_redirect(p):
                self._kernel(
                    self.backend.filter_redirect, p.iface, INGRESS_HANDLE, REDIRECT_PRIO, p.dev
                )

    def _switch(self, params: dict[str, NetemParams], profile: Profile) -> None:
        parent, handle = self._netem_location()
        for name in DIRECTIONS:
            p = self.points[name]
            # "change" only modifies the existing qdisc (never creates one): the queue and
            # the packets in it stay, so there is no moment without shaping.
            self._kernel(
                self.backend.netem,
                "change",
                p.dev,
                parent,
                handle,
                params[name],
                _dist(profile.direction(name)),
            )

    def apply(self, profile: Profile, lease_seconds: float | None) -> dict[str, Any]:
        """Install ``profile`` (build or switch), verify it, start the lease.

        ``lease_seconds=None`` holds the profile until :meth:`clear` (CLI use).
        """
        if lease_seconds is not None and not 0 < lease_seconds <= self.max_lease:
            raise Conflict(f"lease_seconds must be > 0 and <= {self.max_lease:g}")
        with self.lock:
            t0 = time.perf_counter()
            self._check_interfaces()
            params = {n: params_from_profile(profile.direction(n)) for n in DIRECTIONS}
            mode = "build"
            if self._tree_ok or self.read_back()["complete"]:
                # the tree is (believed) intact: change in place. If it vanished behind
                # our back, "change" fails and we fall through to a rebuild.
                try:
                    self._switch(params, profile)
                    mode = "switch"
                except (KernelError, UnknownInterface):
                    self._tree_ok = False
                    if not self._check_interfaces_quiet():
                        raise
            if mode == "build":
                if self._anything_ours():
                    self._restore_locked("rebuild of an incomplete tree")
                original = self._preflight()
                self._write_record(profile=profile.to_dict(), original=original)
                try:
                    self._build(params, profile)
                except AgentError:
                    self._restore_locked("failed build")
                    raise
            self.profile = profile
            state = self.read_back()
            mismatch = self._mismatch(params, state)
            if mismatch:
                self.profile = None
                self._tree_ok = False
                self._restore_locked("verification failed")
                raise VerificationFailed(
                    "the kernel state read back does not match the requested profile; "
                    "the interfaces were restored",
                    {
                        "expected": {n: params[n].to_dict() for n in DIRECTIONS},
                        "expected_profile": profile.to_dict(),
                        "installed": state,
                        "mismatch": mismatch,
                    },
                )
            self._tree_ok = True
            now_wall = self.wall()
            self.applied_at = now_wall
            self._set_lease(lease_seconds)
            # ownership did not change on a switch: no fsync needed for crash recovery
            self._write_record(
                durable=mode == "build",
                profile=profile.to_dict(),
                applied_at=now_wall,
                lease_expires_at=self.lease_expires_wall,
            )
            self._event("applied", mode=mode, lease_seconds=lease_seconds)
            out = self._response(state, mode=mode)
            out["apply_ms"] = round((time.perf_counter() - t0) * 1000, 3)
            return out

    def _mismatch(self, params: dict[str, NetemParams], state: dict[str, Any]) -> list[str]:
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

    def _set_lease(self, lease_seconds: float | None) -> None:
        if lease_seconds is None:
            self.lease_deadline = None
            self.lease_expires_wall = None
        else:
            self.lease_deadline = self.clock() + lease_seconds
            self.lease_expires_wall = self.wall() + lease_seconds

    def renew(self, lease_seconds: float | None = None) -> dict[str, Any]:
        seconds = self.default_lease if lease_seconds is None else lease_seconds
        if not 0 < seconds <= self.max_lease:
            raise Conflict(f"lease_seconds must be > 0 and <= {self.max_lease:g}")
        with self.lock:
            if self.profile is None:
                raise Conflict("no profile is applied; nothing to renew (PUT /v1/profile first)")
            self._set_lease(seconds)
            self._write_record(durable=False, lease_expires_at=self.lease_expires_wall)
            return {
                "lease_expires_at": iso(self.lease_expires_wall),
                "lease_seconds": seconds,
                "applied_at": iso(self.applied_at),
            }

    def check_lease(self) -> bool:
        """Restore if the lease has expired. Returns True when it did."""
        with self.lock:
            if self.profile is None or self.lease_deadline is None:
                return False
            if self.clock() < self.lease_deadline:
                return False
            self._event("lease expired")
            self._restore_locked("lease expired")
            return True

    def seconds_to_expiry(self) -> float | None:
        with self.lock:
            if self.profile is None or self.lease_deadline is None:
                return None
            return max(0.0, self.lease_deadline - self.clock())

    # --- restore -----------------------------------------------------------------------
    def _anything_ours(self) -> bool:
        for p in self.points.values():
            if (
                p.attach == "egress"
                and self.backend.link(p.dev)
                and self._is_ours(self._root(p.dev))
            ):
                return True
            if p.attach == "ingress" and self.backend.link(p.dev) is not None:
                return True
        return self.store.read() is not None

    def clear(self, reason: str = "cleared") -> dict[str, Any]:
        with self.lock:
            return self._restore_locked(reason)

    def _restore_locked(self, reason: str) -> dict[str, Any]:
        """Remove everything the agent installed — and nothing else — then verify."""
        rec = self.store.read() or {}
        owned = rec.get("owned") or {}
        devs = {p.dev for p in self.points.values() if p.attach == "egress"}
        devs |= {r["dev"] for r in owned.get("roots", [])}
        ifbs = {p.dev for p in self._ingress_points()} | set(owned.get("ifb", []))
        ingress_ifaces = {p.iface for p in self._ingress_points()} | set(owned.get("ingress", []))
        devs -= ifbs
        removed: list[str] = []
        errors: list[str] = []
        # 1. stop redirecting into the IFB (only an ingress qdisc we recorded or that
        #    carries nothing but our redirect)
        for iface in sorted(ingress_ifaces):
            if self.backend.link(iface) is None:
                continue
            ingress = self._ingress(iface)
            if ingress is None:
                continue
            recorded = iface in owned.get("ingress", [])
            filters = self._kernel(self.backend.filters, iface, INGRESS_HANDLE)
            only_ours = all(f.kind == "matchall" and f.prio == REDIRECT_PRIO for f in filters)
            if recorded or (filters and only_ours):
                try:
                    self.backend.qdisc_del(iface, TC_H_INGRESS, INGRESS_HANDLE, "ingress")
                    removed.append(f"ingress qdisc on {iface}")
                except BackendError as e:
                    errors.append(str(e))
        # 2. root qdiscs with our handle
        for dev in sorted(devs):
            if self.backend.link(dev) is None:
                continue
            root = self._root(dev)
            if self._is_ours(root):
                assert root is not None
                try:
                    self.backend.qdisc_del(dev, TC_H_ROOT, ROOT_HANDLE, root.kind)
                    removed.append(f"{root.kind} {fmt_handle(ROOT_HANDLE)} on {dev}")
                except BackendError as e:
                    errors.append(str(e))
        # 3. our IFB devices
        for dev in sorted(ifbs):
            link = self.backend.link(dev)
            if link is not None and link.kind == "ifb":
                try:
                    self.backend.del_link(dev)
                    removed.append(f"ifb device {dev}")
                except BackendError as e:
                    errors.append(str(e))
        # verify
        left: list[str] = []
        original = rec.get("original") or {}
        roots: dict[str, Any] = {}
        for dev in sorted(devs):
            if self.backend.link(dev) is None:
                continue
            root = self._root(dev)
            roots[dev] = {
                "root_qdisc": root.describe() if root else None,
                "original": original.get(dev),
            }
            if self._is_ours(root):
                left.append(f"agent qdisc still on {dev}")
            orig = original.get(dev)
            if orig is not None and (root is None or root.describe() != orig):
                left.append(
                    f"{dev}: root qdisc is {root.describe() if root else None}, originally {orig}"
                )
        for dev in sorted(ifbs):
            if (link := self.backend.link(dev)) is not None and link.kind == "ifb":
                left.append(f"ifb device {dev} still exists")
        self.profile = None
        self._tree_ok = False
        self.lease_deadline = None
        self.lease_expires_wall = None
        self.applied_at = None
        result = {
            "reason": reason,
            "removed": removed,
            "interfaces": roots,
            "errors": errors,
            "left_over": left,
            "restored": not errors and not left,
        }
        self.last_restore = {"time": iso(self.wall()), **result}
        self._event("restored", reason=reason, removed=removed, errors=errors, left=left)
        if errors or left:
            raise KernelError("restore incomplete", result)
        self.store.clear()
        self._record_cache = None
        return result

    def recover(self) -> dict[str, Any] | None:
        """At start-up: remove whatever a previous run (or a crash) left behind."""
        with self.lock:
            if not self._anything_ours():
                return None
            return self._restore_locked("start-up recovery")

    # --- reporting ---------------------------------------------------------------------
    def _response(self, state: dict[str, Any], mode: str | None = None) -> dict[str, Any]:
        installed = None
        if state["complete"]:
            installed = {n: state["directions"][n]["profile"] for n in DIRECTIONS}
        out: dict[str, Any] = {
            "installed": installed,
            "kernel": state["directions"],
            "complete": state["complete"],
            "problems": state["problems"],
            "applied_at": iso(self.applied_at),
            "lease_expires_at": iso(self.lease_expires_wall),
            "lease_seconds_remaining": self.seconds_to_expiry(),
            "backend": self.backend.name,
            "topology": self.topology.to_dict(),
            "unverifiable": [
                "jitter_distribution (the kernel does not dump netem's delay "
                "table; the agent sends the table on every apply)"
            ],
        }
        if mode:
            out["mode"] = mode
        return out

    def status(self) -> dict[str, Any]:
        with self.lock:
            self._check_interfaces()
            state = self.read_back()
            out = self._response(state)
            out["applied"] = self.profile is not None
            return out

    def capabilities(self) -> dict[str, Any]:
        links = []
        for link in self.backend.links():
            entry: dict[str, Any] = {
                "name": link.name,
                "index": link.index,
                "up": link.up,
                "kind": link.kind,
                "mtu": link.mtu,
            }
            try:
                root = next(
                    (q for q in self.backend.qdiscs(link.name) if q.parent == TC_H_ROOT), None
                )
                entry["root_qdisc"] = root.describe() if root else None
            except BackendError:
                entry["root_qdisc"] = None
            links.append(entry)
        configured = self.topology.interfaces()
        names = {x["name"] for x in links}
        return {
            "backend": self.backend.name,
            "topology": self.topology.to_dict(),
            "shaping": {n: self.points[n].describe() for n in DIRECTIONS},
            "interfaces": links,
            "configured_interfaces_present": {i: i in names for i in configured},
            "kernel": self.backend.kernel_support(),
            "profile_fields": sorted(DirectionProfile().to_dict()),
            "jitter_distributions": ["normal", "pareto", "paretonormal"],
            "loss_models": ["random", "gilbert_elliott"],
            "lease": {"default_seconds": self.default_lease, "max_seconds": self.max_lease},
        }


def _dist(d: DirectionProfile) -> str | None:
    return d.jitter_distribution if d.jitter_ms > 0 else None
