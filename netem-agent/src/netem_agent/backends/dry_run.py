"""The backend that records: the operations the agent would make, on a model of the kernel."""

from __future__ import annotations

import contextlib
import errno
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from netem_agent.backends.base import BackendError, FilterState, LinkState, QdiscState
from netem_agent.netem import NetemParams
from netem_agent.rtnl import (
    ETH_P_ALL,
    ETH_P_IP,
    INGRESS_HANDLE,
    TC_H_INGRESS,
    TC_H_ROOT,
    fmt_handle,
)


@dataclass
class _FakeLink:
    index: int
    name: str
    up: bool = True
    kind: str | None = None
    qdiscs: list[QdiscState] = field(default_factory=list)
    filters: dict[int, list[FilterState]] = field(default_factory=dict)


class DryRunBackend:
    """Records the exact operations instead of applying them.

    It keeps a small model of the kernel objects those operations would create (with the
    kernel's rules: ``add`` fails if the object exists, ``change`` fails if it does not,
    deleting a root qdisc brings back the interface's default), so the agent's read-back
    verification and restore logic run unchanged. ``operations`` is the recording.
    """

    name = "dry-run"
    kernel_source = "recorded"

    def __init__(self, interfaces: list[str] | None = None) -> None:
        self._lock = threading.Lock()
        self._links: dict[str, _FakeLink] = {}
        self._next_index = 2
        self.operations: list[dict[str, Any]] = []
        self.fail_next: dict[str, Exception] = {}  # test hook: op name → exception
        self.tamper: Any = None  # test hook: callable(QdiscState) applied on read-back
        self.add_interface("lo")
        for name in interfaces or []:
            self.add_interface(name)

    def add_interface(self, name: str, kind: str | None = None) -> None:
        with self._lock:
            if name not in self._links:
                self._links[name] = _FakeLink(
                    self._next_index if name != "lo" else 1, name, kind=kind
                )
                if name != "lo":
                    self._next_index += 1

    def remove_interface(self, name: str) -> None:
        with self._lock:
            self._links.pop(name, None)

    def _record(self, op: str, **kw: Any) -> None:
        exc = self.fail_next.pop(op, None)
        if exc is not None:
            raise exc
        self.operations.append(
            {"seq": len(self.operations) + 1, "time": time.time(), "op": op, **kw}
        )

    def _dev(self, name: str) -> _FakeLink:
        try:
            return self._links[name]
        except KeyError:
            raise BackendError(f"interface {name!r} does not exist", errno_=errno.ENODEV) from None

    @contextlib.contextmanager
    def pinned(self) -> Iterator[None]:
        """Nothing to resolve in the model: names are its keys."""
        yield

    def exists(self, name: str) -> bool:
        with self._lock:
            return name in self._links

    def qdisc_snapshot(self, devs: list[str]) -> dict[str, list[QdiscState]]:
        return {d: self.qdiscs(d) for d in devs if self.exists(d)}

    def link(self, name: str) -> LinkState | None:
        with self._lock:
            x = self._links.get(name)
            return None if x is None else LinkState(x.index, x.name, x.up, x.kind, 1500)

    def links(self) -> list[LinkState]:
        with self._lock:
            return [LinkState(x.index, x.name, x.up, x.kind, 1500) for x in self._links.values()]

    def qdiscs(self, dev: str) -> list[QdiscState]:
        with self._lock:
            link = self._dev(dev)
            out = []
            for q in link.qdiscs:
                copy = QdiscState(q.kind, q.handle, q.parent, q.netem, q.prio)
                if self.tamper is not None:
                    copy = self.tamper(dev, copy)
                out.append(copy)
            if not any(q.parent == TC_H_ROOT for q in out):
                out.append(QdiscState("noqueue", 0, TC_H_ROOT))  # the kernel default
            return out

    def filters(self, dev: str, parent: int) -> list[FilterState]:
        with self._lock:
            return list(self._dev(dev).filters.get(parent, []))

    def _new_qdisc(self, verb: str, dev: str, state: QdiscState) -> None:
        link = self._dev(dev)
        existing = [q for q in link.qdiscs if q.handle == state.handle]
        at_parent = [q for q in link.qdiscs if q.parent == state.parent]
        if verb == "add":
            if existing or at_parent:
                raise BackendError(f"add {state.kind} on {dev}: File exists", errno_=errno.EEXIST)
        elif verb == "change" and (not existing or existing[0].kind != state.kind):
            raise BackendError(
                f"change {state.kind} on {dev}: No such file or directory", errno_=errno.ENOENT
            )
        link.qdiscs = [
            q for q in link.qdiscs if q.handle != state.handle and q.parent != state.parent
        ]
        link.qdiscs.append(state)

    def netem(
        self,
        verb: str,
        dev: str,
        parent: int,
        handle: int,
        params: NetemParams,
        distribution: str | None,
    ) -> None:
        state = QdiscState("netem", handle, parent, netem=params)
        self._qdisc(verb, dev, state, params=params.to_dict(), distribution=distribution)

    def prio(
        self, verb: str, dev: str, parent: int, handle: int, bands: int, priomap: list[int]
    ) -> None:
        state = QdiscState("prio", handle, parent, prio={"bands": bands, "priomap": priomap})
        self._qdisc(verb, dev, state, bands=bands, priomap=priomap)

    def _qdisc(self, verb: str, dev: str, state: QdiscState, **settings: Any) -> None:
        """Record ``qdisc_<verb>`` of ``state`` with its ``settings``, then model it."""
        with self._lock:
            self._dev(dev)
            self._record(
                f"qdisc_{verb}",
                dev=dev,
                parent=fmt_handle(state.parent),
                handle=fmt_handle(state.handle),
                kind=state.kind,
                **settings,
            )
            self._new_qdisc(verb, dev, state)

    def ingress(self, dev: str) -> None:
        with self._lock:
            self._dev(dev)
            self._record("qdisc_add", dev=dev, parent="ingress", handle="ffff:", kind="ingress")
            self._new_qdisc("add", dev, QdiscState("ingress", INGRESS_HANDLE, TC_H_INGRESS))

    def qdisc_del(self, dev: str, parent: int, handle: int, kind: str) -> None:
        with self._lock:
            link = self._dev(dev)
            self._record(
                "qdisc_del",
                dev=dev,
                parent=fmt_handle(parent),
                handle=fmt_handle(handle),
                kind=kind,
            )
            if not any(q.handle == handle for q in link.qdiscs):
                raise BackendError(
                    f"delete qdisc on {dev}: No such file or directory", errno_=errno.ENOENT
                )
            major = handle & 0xFFFF0000
            link.qdiscs = [
                q
                for q in link.qdiscs
                if q.handle != handle
                and (q.parent in (TC_H_ROOT, TC_H_INGRESS) or q.parent & 0xFFFF0000 != major)
            ]
            link.filters.pop(handle, None)

    def filter_u32(
        self, dev: str, parent: int, prio: int, classid: int, keys: list[tuple[int, int, int]]
    ) -> None:
        with self._lock:
            link = self._dev(dev)
            self._record(
                "filter_add",
                dev=dev,
                parent=fmt_handle(parent),
                prio=prio,
                protocol="ip",
                kind="u32",
                classid=fmt_handle(classid),
                keys=[{"value": f"0x{v:08x}", "mask": f"0x{m:08x}", "at": o} for v, m, o in keys],
            )
            link.filters.setdefault(parent, []).append(
                FilterState("u32", prio, ETH_P_IP, classid, sorted(keys))
            )

    def filter_redirect(self, dev: str, parent: int, prio: int, target: str) -> None:
        with self._lock:
            link = self._dev(dev)
            tgt = self._dev(target)
            self._record(
                "filter_add",
                dev=dev,
                parent=fmt_handle(parent),
                prio=prio,
                protocol="all",
                kind="matchall",
                action={"kind": "mirred", "egress_redirect": target},
            )
            link.filters.setdefault(parent, []).append(
                FilterState("matchall", prio, ETH_P_ALL, redirect_ifindex=tgt.index)
            )

    def add_ifb(self, name: str) -> None:
        with self._lock:
            self._record("link_add", name=name, kind="ifb")
            if name in self._links:
                raise BackendError(f"create ifb device {name}: File exists", errno_=errno.EEXIST)
            self._links[name] = _FakeLink(self._next_index, name, up=False, kind="ifb")
            self._next_index += 1

    def set_up(self, name: str) -> None:
        with self._lock:
            self._record("link_set_up", name=name)
            self._dev(name).up = True

    def del_link(self, name: str) -> None:
        with self._lock:
            self._record("link_del", name=name)
            self._dev(name)
            del self._links[name]

    def kernel_support(self) -> dict[str, Any]:
        return {"note": "dry-run backend: nothing is applied to the kernel"}
