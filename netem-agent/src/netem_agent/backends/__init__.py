"""Kernel backends: :class:`NetlinkBackend` talks rtnetlink; :class:`DryRunBackend`
records the operations instead (and models their effect, so read-back still works)."""

from netem_agent.backends.base import Backend, BackendError, FilterState, LinkState, QdiscState
from netem_agent.backends.dry_run import DryRunBackend
from netem_agent.backends.netlink import NetlinkBackend, module_status

__all__ = [
    "Backend",
    "BackendError",
    "DryRunBackend",
    "FilterState",
    "LinkState",
    "NetlinkBackend",
    "QdiscState",
    "module_status",
]
