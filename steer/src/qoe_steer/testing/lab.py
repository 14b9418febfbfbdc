"""The two-path lab inside the user-mode kernel.

Topology (IPv4, every namespace shares the one kernel clock)::

    server ns                 ra ns (netem agent)            client ns
      sa 10.1.0.1/30 ── as 10.1.0.2 | ac 10.1.1.1 ── ca 10.1.1.2/30     path a
      sb 10.2.0.1/30 ── bs 10.2.0.2 | bc 10.2.1.1 ── cb 10.2.1.2/30     path b (rb ns)
      lo 10.9.0.1/32 (game server)                  lo 10.9.0.2/32 (game client)
    root ns: ma0 10.9.255.1/30 ── ma1 10.9.255.2/30 in ra (path a's netem agent),
             mb0 10.9.254.1/30 ── mb1 10.9.254.2/30 in rb (path b's netem agent)

The probes of path X go to the client's address on X (10.X.1.2) and come back the same
way; the game flow between 10.9.0.1 and 10.9.0.2 follows the host routes that
:class:`~qoe_steer.testing.route_actuator.RouteActuator` rewrites in the server and
client namespaces (both directions move together).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from dataclasses import dataclass

from netem_agent.testing import lab as agent_lab  # type: ignore[import-untyped]

SERVER, CLIENT = "server", "client"
GAME_SERVER_IP, GAME_CLIENT_IP = "10.9.0.1", "10.9.0.2"
#: the agents' REST APIs: (root ns address, router ns address) per path
MGMT = {"a": ("10.9.255.1", "10.9.255.2"), "b": ("10.9.254.1", "10.9.254.2")}


@dataclass(frozen=True)
class LabPath:
    """One path: its router namespace, the devices on each side and their addresses."""

    id: str
    router: str
    server_dev: str  # in the server ns
    client_dev: str  # in the client ns
    router_server_dev: str  # the router's side towards the server (agent: server_iface)
    router_client_dev: str  # the router's side towards the client (agent: client_iface)
    net: int  # second octet of the path's networks 10.<net>.0.0/30 and 10.<net>.1.0/30

    @property
    def server_ip(self) -> str:
        return f"10.{self.net}.0.1"

    @property
    def router_server_ip(self) -> str:
        return f"10.{self.net}.0.2"

    @property
    def router_client_ip(self) -> str:
        return f"10.{self.net}.1.1"

    @property
    def client_ip(self) -> str:
        """The reflector's address on this path (the probes' destination)."""
        return f"10.{self.net}.1.2"


PATHS = (
    LabPath("a", "ra", "sa", "ca", "as", "ac", 1),
    LabPath("b", "rb", "sb", "cb", "bs", "bc", 2),
)


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a command, capture its output; raise with its stderr when ``check`` and it fails."""
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip()}")
    return done


def netns(name: str | None) -> contextlib.AbstractContextManager[None]:
    """Run the block in network namespace ``name`` (this thread only; sockets made inside
    stay in it): the netem agent's lab helper, which enters namespaces the same way."""
    manager: contextlib.AbstractContextManager[None] = agent_lab.netns(name)
    return manager


def _veth(a: str, a_ns: str | None, b: str, b_ns: str) -> None:
    head = ["ip", "link", "add", a] + (["netns", a_ns] if a_ns else [])
    sh(*head, "type", "veth", "peer", "name", b, "netns", b_ns)


def _addr(ns: str | None, dev: str, cidr: str) -> None:
    pre = ["ip", "-n", ns] if ns else ["ip"]
    sh(*pre, "addr", "add", cidr, "dev", dev)
    sh(*pre, "link", "set", dev, "up")


def _sysctl(ns: str, *settings: str) -> None:
    sh("ip", "netns", "exec", ns, "sysctl", "-qw", *settings)


def setup(initial: str = "a") -> None:
    """Build the namespaces, links and routes; the game flow starts on path ``initial``."""
    for ns in (SERVER, CLIENT, *(p.router for p in PATHS)):
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        _sysctl(ns, "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0")
    sh("ip", "-n", SERVER, "addr", "add", f"{GAME_SERVER_IP}/32", "dev", "lo")
    sh("ip", "-n", CLIENT, "addr", "add", f"{GAME_CLIENT_IP}/32", "dev", "lo")
    for p in PATHS:
        _veth(p.server_dev, SERVER, p.router_server_dev, p.router)
        _veth(p.client_dev, CLIENT, p.router_client_dev, p.router)
        _addr(SERVER, p.server_dev, f"{p.server_ip}/30")
        _addr(p.router, p.router_server_dev, f"{p.router_server_ip}/30")
        _addr(p.router, p.router_client_dev, f"{p.router_client_ip}/30")
        _addr(CLIENT, p.client_dev, f"{p.client_ip}/30")
        _sysctl(p.router, "net.ipv4.ip_forward=1")
        sh("ip", "-n", SERVER, "route", "add", f"10.{p.net}.1.0/30", "via", p.router_server_ip)
        sh("ip", "-n", CLIENT, "route", "add", f"10.{p.net}.0.0/30", "via", p.router_client_ip)
        sh("ip", "-n", p.router, "route", "add", f"{GAME_CLIENT_IP}/32", "via", p.client_ip)
        sh("ip", "-n", p.router, "route", "add", f"{GAME_SERVER_IP}/32", "via", p.server_ip)
    first = path(initial)
    sh("ip", "-n", SERVER, "route", "add", f"{GAME_CLIENT_IP}/32", "via", first.router_server_ip)
    sh("ip", "-n", CLIENT, "route", "add", f"{GAME_SERVER_IP}/32", "via", first.router_client_ip)
    for p in PATHS:
        host_ip, agent_ip = MGMT[p.id]
        sh(
            "ip",
            "link",
            "add",
            f"m{p.id}0",
            "type",
            "veth",
            "peer",
            "name",
            f"m{p.id}1",
            "netns",
            p.router,
        )
        _addr(None, f"m{p.id}0", f"{host_ip}/30")
        _addr(p.router, f"m{p.id}1", f"{agent_ip}/30")


def path(path_id: str) -> LabPath:
    for p in PATHS:
        if p.id == path_id:
            return p
    raise KeyError(f"no lab path {path_id!r}")


def ifindex(ns: str, dev: str) -> int:
    """The interface index of ``dev`` in namespace ``ns``."""
    out = sh("ip", "-n", ns, "-j", "link", "show", "dev", dev).stdout
    return int(json.loads(out)[0]["ifindex"])
