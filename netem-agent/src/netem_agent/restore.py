"""Restoring the interfaces: remove everything the agent installed — and nothing else —
then verify by reading the kernel back that each root qdisc is the original again.

What the agent owns comes from its topology and from the crash-recovery record, so a
restarted agent also removes what a crashed run left behind.
"""

from __future__ import annotations

from typing import Any

from netem_agent.backends import BackendError
from netem_agent.kernel_view import KernelView
from netem_agent.rtnl import INGRESS_HANDLE, TC_H_INGRESS, TC_H_ROOT, fmt_handle
from netem_agent.shaping_plan import REDIRECT_PRIO, ROOT_HANDLE, is_ours


def anything_ours(kernel: KernelView, record: dict[str, Any] | None) -> bool:
    """Whether the kernel (or the recovery ``record``) holds anything of the agent's."""
    backend = kernel.backend
    for p in kernel.points.values():
        if p.attach == "egress" and backend.link(p.dev) and is_ours(kernel.root(p.dev)):
            return True
        if p.attach == "ingress" and backend.link(p.dev) is not None:
            return True
    return record is not None


def restore(kernel: KernelView, record: dict[str, Any], reason: str) -> dict[str, Any]:
    """Remove the agent's ingress qdiscs, root qdiscs and IFB devices (in that order: stop
    redirecting before the target goes) and report what is left; ``restored`` is true
    when nothing failed and nothing of the agent's remains."""
    backend = kernel.backend
    owned = record.get("owned") or {}
    ingress_points = kernel.ingress_points()
    devs = {p.dev for p in kernel.points.values() if p.attach == "egress"}
    devs |= {r["dev"] for r in owned.get("roots", [])}
    ifbs = {p.dev for p in ingress_points} | set(owned.get("ifb", []))
    ingress_ifaces = {p.iface for p in ingress_points} | set(owned.get("ingress", []))
    devs -= ifbs
    removed: list[str] = []
    errors: list[str] = []
    # 1. stop redirecting into the IFB (only an ingress qdisc we recorded or that
    #    carries nothing but our redirect)
    for iface in sorted(ingress_ifaces):
        if backend.link(iface) is None or kernel.ingress(iface) is None:
            continue
        recorded = iface in owned.get("ingress", [])
        filters = kernel.call(backend.filters, iface, INGRESS_HANDLE)
        only_ours = all(f.kind == "matchall" and f.prio == REDIRECT_PRIO for f in filters)
        if recorded or (filters and only_ours):
            try:
                backend.qdisc_del(iface, TC_H_INGRESS, INGRESS_HANDLE, "ingress")
                removed.append(f"ingress qdisc on {iface}")
            except BackendError as e:
                errors.append(str(e))
    # 2. root qdiscs with our handle
    for dev in sorted(devs):
        if backend.link(dev) is None:
            continue
        root = kernel.root(dev)
        if root is not None and is_ours(root):
            try:
                backend.qdisc_del(dev, TC_H_ROOT, ROOT_HANDLE, root.kind)
                removed.append(f"{root.kind} {fmt_handle(ROOT_HANDLE)} on {dev}")
            except BackendError as e:
                errors.append(str(e))
    # 3. our IFB devices
    for dev in sorted(ifbs):
        link = backend.link(dev)
        if link is not None and link.kind == "ifb":
            try:
                backend.del_link(dev)
                removed.append(f"ifb device {dev}")
            except BackendError as e:
                errors.append(str(e))
    roots, left = _verify(kernel, devs, ifbs, record.get("original") or {})
    return {
        "reason": reason,
        "removed": removed,
        "interfaces": roots,
        "errors": errors,
        "left_over": left,
        "restored": not errors and not left,
    }


def _verify(
    kernel: KernelView, devs: set[str], ifbs: set[str], original: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Each device's root qdisc now and originally, and what of the agent's is left."""
    left: list[str] = []
    roots: dict[str, Any] = {}
    for dev in sorted(devs):
        if kernel.backend.link(dev) is None:
            continue
        root = kernel.root(dev)
        roots[dev] = {
            "root_qdisc": root.describe() if root else None,
            "original": original.get(dev),
        }
        if is_ours(root):
            left.append(f"agent qdisc still on {dev}")
        orig = original.get(dev)
        if orig is not None and (root is None or root.describe() != orig):
            left.append(
                f"{dev}: root qdisc is {root.describe() if root else None}, originally {orig}"
            )
    for dev in sorted(ifbs):
        if (link := kernel.backend.link(dev)) is not None and link.kind == "ifb":
            left.append(f"ifb device {dev} still exists")
    return roots, left
