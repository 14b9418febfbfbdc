"""The backend that drives the kernel: rtnetlink in the agent's network namespace."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from netem_agent import rtnl
from netem_agent.backends.base import BackendError, FilterState, LinkState, QdiscState
from netem_agent.netem import NetemParams, decode_options, encode_options
from netem_agent.rtnl import ETH_P_ALL, ETH_P_IP, INGRESS_HANDLE, TC_H_INGRESS, fmt_handle


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
    kernel_source = "read-back"

    def __init__(self) -> None:
        # both sockets belong to the network namespace the backend is created in
        self._nl = rtnl.Rtnl()
        self._ioctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._lock = threading.Lock()
        # name -> index inside a pinned() scope (None outside one); per thread, so another
        # thread's request (capabilities, say) never sees a scope it did not open
        self._scope = threading.local()

    @contextlib.contextmanager
    def pinned(self) -> Iterator[None]:
        """Resolve each interface name once in this scope (one request under the agent's
        lock): a switch used to look up the same two names three times (existence check,
        change, read-back), and under user-mode Linux each SIOCGIFINDEX is a trap to the
        host. Only found names are kept, and deleting or creating a link forgets its name,
        so the agent's own changes inside the scope are seen; a link replaced by someone
        else during the scope shows as a failed change or a failed read-back, as it would
        a moment later."""
        outer = getattr(self._scope, "names", None)
        if outer is None:
            self._scope.names = {}
        try:
            yield
        finally:
            if outer is None:
                self._scope.names = None

    def _forget(self, name: str) -> None:
        names = getattr(self._scope, "names", None)
        if names is not None:
            names.pop(name, None)

    def _ifindex(self, dev: str) -> int | None:
        """SIOCGIFINDEX: one cheap syscall, in the backend's namespace (once per name in
        a :meth:`pinned` scope)."""
        if not dev or len(dev) >= 16:
            return None
        names: dict[str, int] | None = getattr(self._scope, "names", None)
        if names is not None and dev in names:
            return names[dev]
        try:
            req = fcntl.ioctl(
                self._ioctl.fileno(), SIOCGIFINDEX, struct.pack("16si", dev.encode(), 0)
            )
        except OSError:
            return None
        index: int = struct.unpack_from("16si", req)[1]
        if names is not None:
            names[dev] = index
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
        self._forget(name)
        self._call(f"create ifb device {name}", self._nl.add_ifb, name)

    def set_up(self, name: str) -> None:
        self._call(f"set {name} up", self._nl.set_up, self._index(name))

    def del_link(self, name: str) -> None:
        try:
            self._call(f"delete link {name}", self._nl.del_link, self._index(name))
        finally:
            self._forget(name)

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
