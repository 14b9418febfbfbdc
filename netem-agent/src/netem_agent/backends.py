"""Kernel backends: ``NetlinkBackend`` talks rtnetlink; ``DryRunBackend`` records.

Both expose the same small vocabulary (qdiscs, filters, IFB links) with structured
read-back, so the agent's logic — tree building, switching, verification, restore —
is identical whether it drives a kernel or a recording.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from netem_agent import rtnl
from netem_agent.netem import NetemParams, decode_options, encode_options
from netem_agent.rtnl import (
    ETH_P_ALL,
    ETH_P_IP,
    INGRESS_HANDLE,
    TC_H_INGRESS,
    TC_H_ROOT,
    fmt_handle,
)


class BackendError(RuntimeError):
    """A kernel operation failed."""

    def __init__(self, message: str, *, errno_: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno_


@dataclass
class QdiscState:
    kind: str
    handle: int
    parent: int
    netem: NetemParams | None = None
    prio: dict[str, Any] | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "handle": fmt_handle(self.handle),
            "parent": fmt_handle(self.parent),
        }


@dataclass
class FilterState:
    kind: str
    prio: int
    protocol: int
    classid: int | None = None
    keys: list[tuple[int, int, int]] = field(default_factory=list)
    redirect_ifindex: int | None = None


@dataclass
class LinkState:
    index: int
    name: str
    up: bool
    kind: str | None = None
    mtu: int = 0


class Backend(Protocol):
    name: str

    def exists(self, name: str) -> bool: ...
    def link(self, name: str) -> LinkState | None: ...
    def links(self) -> list[LinkState]: ...
    def qdisc_snapshot(self, devs: list[str]) -> dict[str, list[QdiscState]]: ...
    def qdiscs(self, dev: str) -> list[QdiscState]: ...
    def filters(self, dev: str, parent: int) -> list[FilterState]: ...
    def netem(
        self,
        verb: str,
        dev: str,
        parent: int,
        handle: int,
        params: NetemParams,
        distribution: str | None,
    ) -> None: ...
    def prio(
        self, verb: str, dev: str, parent: int, handle: int, bands: int, priomap: list[int]
    ) -> None: ...
    def ingress(self, dev: str) -> None: ...
    def qdisc_del(self, dev: str, parent: int, handle: int, kind: str) -> None: ...
    def filter_u32(
        self, dev: str, parent: int, prio: int, classid: int, keys: list[tuple[int, int, int]]
    ) -> None: ...
    def filter_redirect(self, dev: str, parent: int, prio: int, target: str) -> None: ...
    def add_ifb(self, name: str) -> None: ...
    def set_up(self, name: str) -> None: ...
    def del_link(self, name: str) -> None: ...
    def kernel_support(self) -> dict[str, Any]: ...


# ---------------------------------------------------------------------------------------


def module_status(name: str) -> dict[str, Any]:
    """Whether a kernel module is loaded, built in, or available for autoloading."""
    if Path(f"/sys/module/{name}").exists():
        return {"available": True, "how": "loaded"}
    release = os.uname().release
    base = Path(f"/lib/modules/{release}")
    try:
        builtin = (base / "modules.builtin").read_text()
        if f"/{name}.ko" in builtin:
            return {"available": True, "how": "built-in"}
    except OSError:
        pass
    try:
        dep = (base / "modules.dep").read_text()
        if f"/{name}.ko" in dep:
            return {"available": True, "how": "module (autoloaded on first use)"}
    except OSError:
        pass
    return {"available": False, "how": "not found"}


SIOCGIFINDEX = 0x8933


class NetlinkBackend:
    """Applies operations through rtnetlink in the agent's network namespace."""

    name = "netlink"

    def __init__(self) -> None:
        # both sockets belong to the network namespace the backend is created in
        self._nl = rtnl.Rtnl()
        self._ioctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._lock = threading.Lock()

    def _ifindex(self, dev: str) -> int | None:
        """SIOCGIFINDEX: one cheap syscall, in the backend's namespace."""
        if not dev or len(dev) >= 16:
            return None
        try:
            req = fcntl.ioctl(
                self._ioctl.fileno(), SIOCGIFINDEX, struct.pack("16si", dev.encode(), 0)
            )
        except OSError:
            return None
        index: int = struct.unpack_from("16si", req)[1]
        return index

    def _index(self, dev: str) -> int:
        index = self._ifindex(dev)
        if index is None:
            raise BackendError(f"interface {dev!r} does not exist", errno_=errno.ENODEV)
        return index

    def exists(self, name: str) -> bool:
        return self._ifindex(name) is not None

    @staticmethod
    def _state(q: rtnl.Qdisc) -> QdiscState:
        state = QdiscState(q.kind, q.handle, q.parent)
        if q.kind == "netem" and q.options:
            state.netem = decode_options(q.options)
        elif q.kind == "prio" and q.options:
            state.prio = rtnl.decode_prio_options(q.options)
        return state

    def qdisc_snapshot(self, devs: list[str]) -> dict[str, list[QdiscState]]:
        """One dump for several devices (missing devices are left out)."""
        index = {}
        for dev in devs:
            i = self._ifindex(dev)
            if i is not None:
                index[i] = dev
        out: dict[str, list[QdiscState]] = {dev: [] for dev in index.values()}
        for q in self._nl.qdiscs(None):
            name = index.get(q.ifindex)
            if name is not None:
                out[name].append(self._state(q))
        return out

    def _call(self, what: str, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except rtnl.NetlinkError as e:
            hint = ""
            if e.errno == errno.ENOENT and "netem" in what:
                hint = " (is the sch_netem kernel module available?)"
            if e.errno == errno.EOPNOTSUPP and "ifb" in what:
                hint = " (is the ifb kernel module available?)"
            raise BackendError(f"{what}: {e.strerror}{hint}", errno_=e.errno) from e

    def link(self, name: str) -> LinkState | None:
        link = self._nl.link(name)
        if link is None:
            return None
        return LinkState(link.index, link.name, link.up, link.kind, link.mtu)

    def links(self) -> list[LinkState]:
        return [LinkState(x.index, x.name, x.up, x.kind, x.mtu) for x in self._nl.links()]

    def qdiscs(self, dev: str) -> list[QdiscState]:
        return [self._state(q) for q in self._nl.qdiscs(self._index(dev))]

    def filters(self, dev: str, parent: int) -> list[FilterState]:
        out = []
        for f in self._nl.filters(self._index(dev), parent):
            state = FilterState(f.kind, f.prio, f.protocol)
            if f.kind == "u32":
                u = rtnl.decode_u32_options(f.options)
                state.classid, state.keys = u["classid"], u["keys"]
            elif f.kind == "matchall":
                for act in rtnl.decode_matchall_options(f.options)["actions"]:
                    if act.get("kind") == "mirred" and act.get("eaction") == rtnl.TCA_EGRESS_REDIR:
                        state.redirect_ifindex = act.get("ifindex")
            out.append(state)
        return out

    def netem(
        self,
        verb: str,
        dev: str,
        parent: int,
        handle: int,
        params: NetemParams,
        distribution: str | None,
    ) -> None:
        opts = encode_options(params, distribution)
        self._call(
            f"{verb} netem on {dev}",
            self._nl.qdisc,
            verb,
            self._index(dev),
            parent,
            handle,
            "netem",
            opts,
        )

    def prio(
        self, verb: str, dev: str, parent: int, handle: int, bands: int, priomap: list[int]
    ) -> None:
        self._call(
            f"{verb} prio on {dev}",
            self._nl.qdisc,
            verb,
            self._index(dev),
            parent,
            handle,
            "prio",
            rtnl.prio_options(bands, priomap),
        )

    def ingress(self, dev: str) -> None:
        self._call(
            f"add ingress qdisc on {dev}",
            self._nl.qdisc,
            "add",
            self._index(dev),
            TC_H_INGRESS,
            INGRESS_HANDLE,
            "ingress",
            None,
        )

    def qdisc_del(self, dev: str, parent: int, handle: int, kind: str) -> None:
        self._call(
            f"delete {kind} qdisc {fmt_handle(handle)} on {dev}",
            self._nl.qdisc,
            "del",
            self._index(dev),
            parent,
            handle,
            kind,
            None,
        )

    def filter_u32(
        self, dev: str, parent: int, prio: int, classid: int, keys: list[tuple[int, int, int]]
    ) -> None:
        self._call(
            f"add u32 filter on {dev}",
            self._nl.add_filter,
            self._index(dev),
            parent,
            prio,
            ETH_P_IP,
            "u32",
            rtnl.u32_options(classid, keys),
        )

    def filter_redirect(self, dev: str, parent: int, prio: int, target: str) -> None:
        opts = rtnl.matchall_redirect_options(self._index(target))
        self._call(
            f"add redirect filter {dev}→{target}",
            self._nl.add_filter,
            self._index(dev),
            parent,
            prio,
            ETH_P_ALL,
            "matchall",
            opts,
        )

    def add_ifb(self, name: str) -> None:
        self._call(f"create ifb device {name}", self._nl.add_ifb, name)

    def set_up(self, name: str) -> None:
        self._call(f"set {name} up", self._nl.set_up, self._index(name))

    def del_link(self, name: str) -> None:
        self._call(f"delete link {name}", self._nl.del_link, self._index(name))

    def kernel_support(self) -> dict[str, Any]:
        return {
            "sch_netem": module_status("sch_netem"),
            "ifb": module_status("ifb"),
            "sch_prio": module_status("sch_prio"),
            "cls_u32": module_status("cls_u32"),
            "cls_matchall": module_status("cls_matchall"),
            "act_mirred": module_status("act_mirred"),
            "kernel": os.uname().release,
        }


# ---------------------------------------------------------------------------------------


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
        with self._lock:
            self._dev(dev)
            self._record(
                f"qdisc_{verb}",
                dev=dev,
                parent=fmt_handle(parent),
                handle=fmt_handle(handle),
                kind="netem",
                params=params.to_dict(),
                distribution=distribution,
            )
            self._new_qdisc(verb, dev, QdiscState("netem", handle, parent, netem=params))

    def prio(
        self, verb: str, dev: str, parent: int, handle: int, bands: int, priomap: list[int]
    ) -> None:
        with self._lock:
            self._dev(dev)
            self._record(
                f"qdisc_{verb}",
                dev=dev,
                parent=fmt_handle(parent),
                handle=fmt_handle(handle),
                kind="prio",
                bands=bands,
                priomap=priomap,
            )
            self._new_qdisc(
                verb,
                dev,
                QdiscState("prio", handle, parent, prio={"bands": bands, "priomap": priomap}),
            )

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
