"""Installing the agent's qdisc tree: the pre-flight check, the one-time build and the
in-place switch of a new profile (``change``: the queue and its packets stay)."""

from __future__ import annotations

from typing import Any

from netem_profile import DIRECTIONS, Profile

from netem_agent.errors import Conflict
from netem_agent.kernel_view import KernelView
from netem_agent.netem import NetemParams
from netem_agent.rtnl import INGRESS_HANDLE, TC_H_ROOT, fmt_handle
from netem_agent.shaping_plan import (
    GAME_CLASS,
    OTHER_BAND_PRIOMAP,
    REDIRECT_PRIO,
    ROOT_HANDLE,
    flow_filter_keys,
    is_ours,
    jitter_table,
    netem_location,
)


def preflight(kernel: KernelView, recorded_ingress: list[str]) -> dict[str, Any]:
    """Refuse to take over anything the agent could not restore; return the original root
    qdisc of each egress device (None where it is the kernel default)."""
    original: dict[str, Any] = {}
    for p in kernel.points.values():
        if p.attach == "ingress":
            ingress = kernel.ingress(p.iface)
            if ingress is not None and not kernel.ingress_is_ours(p, recorded_ingress):
                raise Conflict(
                    f"{p.iface} already has an ingress qdisc the agent did not install; "
                    "refusing to replace it",
                    {"interface": p.iface, "qdisc": ingress.describe()},
                )
            link = kernel.backend.link(p.dev)
            if link is not None and link.kind != "ifb":
                raise Conflict(
                    f"{p.dev} exists and is not an ifb device",
                    {"device": p.dev, "kind": link.kind},
                )
            continue
        root = kernel.root(p.dev)
        if root is not None and not is_ours(root) and root.handle != 0:
            raise Conflict(
                f"{p.dev} has a root qdisc ({root.kind} {fmt_handle(root.handle)}) that the "
                "agent did not install; refusing to replace it (it could not be restored)",
                {"interface": p.dev, "qdisc": root.describe()},
            )
        original[p.dev] = root.describe() if root and not is_ours(root) else None
    return original


def build(kernel: KernelView, params: dict[str, NetemParams], profile: Profile) -> None:
    """Create the whole tree: IFB devices, root qdiscs (and flow filters), redirects."""
    backend, call = kernel.backend, kernel.call
    parent, handle = netem_location(kernel.topology)
    flow = kernel.topology.flow
    # IFB devices first: if the ifb module is missing nothing has been touched yet
    for p in kernel.ingress_points():
        if backend.link(p.dev) is None:
            call(backend.add_ifb, p.dev)
        call(backend.set_up, p.dev)
    for name in DIRECTIONS:
        p = kernel.points[name]
        dist = jitter_table(profile.direction(name))
        if flow is None:
            call(backend.netem, "add", p.dev, TC_H_ROOT, ROOT_HANDLE, params[name], dist)
        else:
            call(backend.prio, "add", p.dev, TC_H_ROOT, ROOT_HANDLE, 2, OTHER_BAND_PRIOMAP)
            call(backend.netem, "add", p.dev, parent, handle, params[name], dist)
            for i, keys in enumerate(flow_filter_keys(flow, name), start=1):
                call(backend.filter_u32, p.dev, ROOT_HANDLE, i, GAME_CLASS, keys)
    # the ingress redirect last: packets only reach the IFB once its tree is in place
    for p in kernel.ingress_points():
        if kernel.ingress(p.iface) is None:
            call(backend.ingress, p.iface)
        if kernel.check_redirect(p):
            call(backend.filter_redirect, p.iface, INGRESS_HANDLE, REDIRECT_PRIO, p.dev)


def switch(kernel: KernelView, params: dict[str, NetemParams], profile: Profile) -> None:
    """Change the netem qdiscs of an intact tree to ``params``."""
    parent, handle = netem_location(kernel.topology)
    for name in DIRECTIONS:
        p = kernel.points[name]
        # "change" only modifies the existing qdisc (never creates one): the queue and
        # the packets in it stay, so there is no moment without shaping.
        kernel.call(
            kernel.backend.netem,
            "change",
            p.dev,
            parent,
            handle,
            params[name],
            jitter_table(profile.direction(name)),
        )
