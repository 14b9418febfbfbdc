"""The agent: applies a profile (building its qdisc tree once, then switching in place),
verifies it by reading the kernel back, holds it for a lease, and restores the interfaces
on lease expiry, on request, on signals and at start-up (crash recovery).

The pieces: :mod:`~netem_agent.shaping_plan` (where, and which objects are the agent's),
:mod:`~netem_agent.kernel_view` (calls and read-back), :mod:`~netem_agent.tree_builder`
(build, switch), :mod:`~netem_agent.restore`, :mod:`~netem_agent.lease` and
:mod:`~netem_agent.state_store` (the crash-recovery record). This module sequences them
under one lock.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from netem_profile import DIRECTIONS, JITTER_DISTRIBUTIONS, DirectionProfile, Profile

from netem_agent import __version__, restore, tree_builder
from netem_agent.backends import Backend, BackendError
from netem_agent.config import Topology
from netem_agent.errors import (
    AgentError,
    Conflict,
    KernelError,
    UnknownInterface,
    VerificationFailed,
)
from netem_agent.kernel_view import KernelView, mismatch
from netem_agent.lease import Lease
from netem_agent.netem import params_from_profile
from netem_agent.rtnl import TC_H_ROOT, fmt_handle
from netem_agent.shaping_plan import ROOT_HANDLE
from netem_agent.state_store import STATE_VERSION, StateStore, iso

log = logging.getLogger("netem_agent")


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
        self.kernel = KernelView(topology, backend)
        self.points = self.kernel.points
        self.lease = Lease(clock, wall)
        self.profile: Profile | None = None
        self.applied_at: float | None = None
        self.last_restore: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self._tree_ok = False  # the full tree was verified by the last apply
        self._record_cache: dict[str, Any] | None = None
        self._pid = os.getpid()  # recorded with every write; a system call each time
        #: Called under :attr:`lock` with the lease's new deadline (agent clock; None: no
        #: deadline) after every apply and renew: the server wakes its lease watcher from
        #: here when the lease now ends before the watcher looks next.
        self.on_lease_change: Callable[[float | None], None] | None = None

    def _lease_changed(self) -> None:
        if self.on_lease_change is not None:
            self.on_lease_change(self.lease.deadline)

    def _event(self, kind: str, *, at: float | None = None, **kw: Any) -> None:
        """Record and log an event; ``at`` is its wall-clock time when already read."""
        self.events.append({"time": iso(self.wall() if at is None else at), "event": kind, **kw})
        del self.events[:-100]
        log.info("%s %s", kind, kw)

    def _distribution(self, direction: str) -> str:
        """The jitter distribution last sent for ``direction`` (the kernel cannot tell)."""
        if self.profile is not None:
            return self.profile.direction(direction).jitter_distribution
        rec = self.store.read() or {}
        prof = (rec.get("profile") or {}).get(direction) or {}
        return str(prof.get("jitter_distribution", "normal"))

    def read_back(self) -> dict[str, Any]:
        """What is installed, per direction, read from the kernel."""
        return self.kernel.read_back(self._distribution)

    # --- the crash-recovery record ---------------------------------------------------
    def _owned_record(self) -> dict[str, Any]:
        ingress_points = self.kernel.ingress_points()
        return {
            "roots": [
                {"dev": p.dev, "handle": fmt_handle(ROOT_HANDLE)} for p in self.points.values()
            ],
            "ingress": [p.iface for p in ingress_points],
            "ifb": [p.dev for p in ingress_points],
        }

    def _write_record(self, durable: bool = True, **extra: Any) -> None:
        rec = self._record_cache if self._record_cache is not None else (self.store.read() or {})
        rec.update(
            {
                "version": STATE_VERSION,
                "pid": self._pid,
                "topology": self.topology.to_dict(),
                "owned": self._owned_record(),
                **extra,
            }
        )
        rec.setdefault("original", {})
        self.store.write(rec, durable=durable)
        self._record_cache = rec

    # --- apply -------------------------------------------------------------------------
    def apply(self, profile: Profile, lease_seconds: float | None) -> dict[str, Any]:
        """Install ``profile`` (build or switch), verify it, start the lease.

        ``lease_seconds=None`` holds the profile until :meth:`clear` (CLI use).
        """
        if lease_seconds is not None and not 0 < lease_seconds <= self.max_lease:
            raise Conflict(f"lease_seconds must be > 0 and <= {self.max_lease:g}")
        with self.lock, self.backend.pinned():
            t0 = time.perf_counter()
            self.kernel.check_interfaces()
            params = {n: params_from_profile(profile.direction(n)) for n in DIRECTIONS}
            mode = "build"
            if self._tree_ok or self.read_back()["complete"]:
                # the tree is (believed) intact: change in place. If it vanished behind
                # our back, "change" fails and we fall through to a rebuild.
                try:
                    tree_builder.switch(self.kernel, params, profile)
                    mode = "switch"
                except (KernelError, UnknownInterface):
                    self._tree_ok = False
                    if not self.kernel.interfaces_present():
                        raise
            if mode == "build":
                if restore.anything_ours(self.kernel, self.store.read()):
                    self._restore_locked("rebuild of an incomplete tree")
                recorded = ((self.store.read() or {}).get("owned") or {}).get("ingress", [])
                original = tree_builder.preflight(self.kernel, recorded)
                self._write_record(profile=profile.to_dict(), original=original)
                try:
                    tree_builder.build(self.kernel, params, profile)
                except AgentError:
                    self._restore_locked("failed build")
                    raise
            self.profile = profile
            state = self.read_back()
            problems = mismatch(params, state)
            if problems:
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
                        "mismatch": problems,
                    },
                )
            self._tree_ok = True
            # one reading of each clock for the lease, the record, the event and the
            # answer (each reading is a system call under user-mode Linux)
            now, now_wall = self.clock(), self.wall()
            self.applied_at = now_wall
            self.lease.start(lease_seconds, now, now_wall)
            # ownership did not change on a switch: no fsync needed for crash recovery
            self._write_record(
                durable=mode == "build",
                profile=profile.to_dict(),
                applied_at=now_wall,
                lease_expires_at=self.lease.expires_wall,
            )
            self._lease_changed()
            self._event("applied", at=now_wall, mode=mode, lease_seconds=lease_seconds)
            out = self._response(state, mode=mode, now=now)
            out["apply_ms"] = round((time.perf_counter() - t0) * 1000, 3)
            return out

    # --- lease -------------------------------------------------------------------------
    def renew(self, lease_seconds: float | None = None) -> dict[str, Any]:
        seconds = self.default_lease if lease_seconds is None else lease_seconds
        if not 0 < seconds <= self.max_lease:
            raise Conflict(f"lease_seconds must be > 0 and <= {self.max_lease:g}")
        with self.lock:
            if self.profile is None:
                raise Conflict("no profile is applied; nothing to renew (PUT /v1/profile first)")
            self.lease.start(seconds)
            self._write_record(durable=False, lease_expires_at=self.lease.expires_wall)
            self._lease_changed()
            return {
                "lease_expires_at": iso(self.lease.expires_wall),
                "lease_seconds": seconds,
                "applied_at": iso(self.applied_at),
            }

    def check_lease(self) -> bool:
        """Restore if the lease has expired. Returns True when it did."""
        with self.lock:
            if self.profile is None or not self.lease.expired():
                return False
            self._event("lease expired")
            self._restore_locked("lease expired")
            return True

    def seconds_to_expiry(self) -> float | None:
        with self.lock:
            return None if self.profile is None else self.lease.remaining()

    # --- restore -----------------------------------------------------------------------
    def clear(self, reason: str = "cleared") -> dict[str, Any]:
        with self.lock:
            return self._restore_locked(reason)

    def recover(self) -> dict[str, Any] | None:
        """At start-up: remove whatever a previous run (or a crash) left behind."""
        with self.lock:
            if not restore.anything_ours(self.kernel, self.store.read()):
                return None
            return self._restore_locked("start-up recovery")

    def _restore_locked(self, reason: str) -> dict[str, Any]:
        result = restore.restore(self.kernel, self.store.read() or {}, reason)
        self.profile = None
        self._tree_ok = False
        self.lease.end()
        self.applied_at = None
        self.last_restore = {"time": iso(self.wall()), **result}
        self._event(
            "restored",
            reason=reason,
            removed=result["removed"],
            errors=result["errors"],
            left=result["left_over"],
        )
        if not result["restored"]:
            raise KernelError("restore incomplete", result)
        self.store.clear()
        self._record_cache = None
        return result

    # --- reporting ---------------------------------------------------------------------
    def _response(
        self, state: dict[str, Any], mode: str | None = None, now: float | None = None
    ) -> dict[str, Any]:
        """The profile answer; ``now`` is the agent clock's reading when already taken."""
        remaining = None
        if self.profile is not None:
            remaining = self.lease.remaining(now)
        installed = None
        if state["complete"]:
            installed = {n: state["directions"][n]["profile"] for n in DIRECTIONS}
        out: dict[str, Any] = {
            "installed": installed,
            "kernel": state["directions"],
            "complete": state["complete"],
            "problems": state["problems"],
            "applied_at": iso(self.applied_at),
            "lease_expires_at": iso(self.lease.expires_wall),
            "lease_seconds_remaining": remaining,
            **self.provenance(),
            "topology": self.topology.to_dict(),
            "unverifiable": [
                "jitter_distribution (the kernel does not dump netem's delay "
                "table; the agent sends the table on every apply)"
            ],
        }
        if mode:
            out["mode"] = mode
        return out

    def provenance(self) -> dict[str, Any]:
        """Who answered and what ``kernel`` is worth: every profile and capabilities
        response carries it, so a recording can never pass for a kernel read-back."""
        out: dict[str, Any] = {
            "agent_version": __version__,
            "backend": self.backend.name,
            "kernel_source": self.backend.kernel_source,
        }
        if self.backend.kernel_source != "read-back":
            out["kernel_note"] = (
                f"{self.backend.name} backend: nothing was applied to a kernel; 'kernel' is "
                "the recorded model of the operations, not a read-back"
            )
        return out

    def status(self) -> dict[str, Any]:
        with self.lock, self.backend.pinned():
            self.kernel.check_interfaces()
            out = self._response(self.read_back())
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
            **self.provenance(),
            "topology": self.topology.to_dict(),
            "shaping": {n: self.points[n].describe() for n in DIRECTIONS},
            "interfaces": links,
            "configured_interfaces_present": {i: i in names for i in configured},
            "kernel": self.backend.kernel_support(),
            "profile_fields": sorted(DirectionProfile().to_dict()),
            "jitter_distributions": list(JITTER_DISTRIBUTIONS),
            "loss_models": ["random", "gilbert_elliott"],
            "lease": {"default_seconds": self.default_lease, "max_seconds": self.max_lease},
        }
