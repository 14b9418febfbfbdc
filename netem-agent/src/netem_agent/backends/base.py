"""What every kernel backend offers: a small vocabulary (qdiscs, filters, IFB links) with
structured read-back, so the agent's logic — tree building, switching, verification,
restore — is identical whether it drives a kernel or a recording."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from netem_agent.netem import NetemParams
from netem_agent.rtnl import fmt_handle


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
    #: Where the agent's ``kernel`` document comes from: ``"read-back"`` (dumped from the
    #: kernel after the change) or ``"recorded"`` (a model of the operations; nothing was
    #: applied to a kernel, so it proves nothing about the network).
    kernel_source: str

    def exists(self, name: str) -> bool: ...
    def pinned(self) -> AbstractContextManager[None]:
        """A scope (one request, under the agent's lock) in which each interface name is
        resolved once: what the first look-up found is reused until the scope ends."""
        ...

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
