"""Agent configuration (TOML) and the network topology it shapes."""

from __future__ import annotations

import ipaddress
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

IFNAMSIZ = 16


class ConfigError(ValueError):
    """The configuration file or command-line topology is invalid."""


@dataclass(frozen=True)
class FlowFilter:
    """Shape only the game flow: packets to/from ``server_addr`` (and ``ports``)."""

    server_addr: str
    ports: tuple[int, ...] = ()
    protocol: str = "any"  # udp | tcp | any

    def to_dict(self) -> dict[str, Any]:
        return {
            "server_addr": self.server_addr,
            "ports": list(self.ports),
            "protocol": self.protocol,
        }


@dataclass(frozen=True)
class Topology:
    """Where each direction is shaped.

    * ``bridge`` (router/bridge box between client and server): server→client on egress of
      ``client_iface``, client→server on egress of ``server_iface``.
    * ``single`` (the box is the client or the server itself, ``role``): the outgoing
      direction on egress of ``iface``, the incoming one on an IFB device fed by a
      redirect on ``iface``'s ingress.
    """

    mode: str = "bridge"
    client_iface: str | None = None
    server_iface: str | None = None
    iface: str | None = None
    role: str = "client"
    ifb_name: str = "qoeifb0"
    flow: FlowFilter | None = None

    def interfaces(self) -> list[str]:
        if self.mode == "bridge":
            return [self.client_iface or "", self.server_iface or ""]
        return [self.iface or ""]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"mode": self.mode}
        if self.mode == "bridge":
            d.update(client_iface=self.client_iface, server_iface=self.server_iface)
        else:
            d.update(iface=self.iface, role=self.role, ifb=self.ifb_name)
        d["flow_filter"] = self.flow.to_dict() if self.flow else None
        return d


def _check_ifname(name: Any, what: str) -> str:
    if (
        not isinstance(name, str)
        or not name
        or len(name) >= IFNAMSIZ
        or "/" in name
        or any(c.isspace() for c in name)
    ):
        raise ConfigError(f"{what}: invalid interface name {name!r}")
    return name


def make_flow(doc: dict[str, Any] | None) -> FlowFilter | None:
    if not doc:
        return None
    unknown = set(doc) - {"server_addr", "ports", "protocol"}
    if unknown:
        raise ConfigError(f"flow filter: unknown keys {sorted(unknown)}")
    try:
        addr = ipaddress.IPv4Address(str(doc.get("server_addr", "")))
    except ValueError as e:
        raise ConfigError(f"flow filter: server_addr must be an IPv4 address ({e})") from e
    ports = doc.get("ports", [])
    if not isinstance(ports, list) or not all(
        isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= 65535 for p in ports
    ):
        raise ConfigError("flow filter: ports must be a list of integers 1..65535")
    protocol = doc.get("protocol", "any")
    if protocol not in ("udp", "tcp", "any"):
        raise ConfigError("flow filter: protocol must be udp, tcp or any")
    return FlowFilter(str(addr), tuple(sorted(set(ports))), protocol)


def make_topology(doc: dict[str, Any]) -> Topology:
    unknown = set(doc) - {
        "mode",
        "client_iface",
        "server_iface",
        "iface",
        "role",
        "ifb_name",
        "flow",
    }
    if unknown:
        raise ConfigError(f"topology: unknown keys {sorted(unknown)}")
    mode = doc.get("mode", "bridge")
    flow = make_flow(doc.get("flow"))
    ifb = _check_ifname(doc.get("ifb_name", "qoeifb0"), "topology.ifb_name")
    if mode == "bridge":
        if doc.get("iface"):
            raise ConfigError('topology: iface is for mode = "single"')
        c = _check_ifname(doc.get("client_iface"), "topology.client_iface")
        s = _check_ifname(doc.get("server_iface"), "topology.server_iface")
        if c == s:
            raise ConfigError(
                "topology: client_iface and server_iface must differ "
                '(use mode = "single" for one interface)'
            )
        return Topology("bridge", client_iface=c, server_iface=s, ifb_name=ifb, flow=flow)
    if mode == "single":
        if doc.get("client_iface") or doc.get("server_iface"):
            raise ConfigError('topology: client_iface/server_iface are for mode = "bridge"')
        role = doc.get("role", "client")
        if role not in ("client", "server"):
            raise ConfigError('topology.role must be "client" or "server"')
        i = _check_ifname(doc.get("iface"), "topology.iface")
        if i == ifb:
            raise ConfigError("topology: iface and ifb_name must differ")
        return Topology("single", iface=i, role=role, ifb_name=ifb, flow=flow)
    raise ConfigError(f'topology.mode must be "bridge" or "single", not {mode!r}')


@dataclass
class Config:
    listen: str = "127.0.0.1"
    port: int = 8787
    token: str | None = None
    topology: Topology = field(default_factory=Topology)
    backend: str = "netlink"
    lease_seconds: float = 30.0
    max_lease_seconds: float = 3600.0
    state_dir: Path = Path("/var/lib/netem-agent")
    dry_run_interfaces: list[str] = field(default_factory=list)
    #: PEM certificate (chain) and private key: with both, the agent speaks HTTPS only.
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    #: Plain HTTP on a non-loopback address: the bearer token crosses the network in clear.
    #: Only for an isolated cable between the QoE Lab server and the emulator box.
    allow_plain_http: bool = False

    @property
    def tls(self) -> bool:
        return self.tls_cert_file is not None and self.tls_key_file is not None


def is_loopback(listen: str) -> bool:
    """Whether ``listen`` only accepts connections from this machine (127.0.0.0/8, ::1,
    ``localhost``). ``0.0.0.0``, ``::``, an empty address and other host names are not."""
    if listen.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(listen.strip("[]")).is_loopback
    except ValueError:
        return False


def transport_problem(cfg: Config) -> str | None:
    """Why the agent must not serve this configuration, or None.

    Issue 13: the bearer token must never cross the lab network in clear. Plain HTTP is
    allowed on loopback (demo, dry-run, an SSH tunnel) or with an explicit
    ``allow_plain_http = true``; any other address needs ``tls_cert_file``/``tls_key_file``.
    """
    if cfg.tls or cfg.allow_plain_http or is_loopback(cfg.listen):
        return None
    return (
        f"server.listen = {cfg.listen!r} is not a loopback address and no TLS is configured: "
        "the bearer token would cross the network in clear. Set server.tls_cert_file and "
        "server.tls_key_file (`netem-agent make-cert` makes a self-signed pair), listen on "
        "127.0.0.1, or - on an isolated cable only - set server.allow_plain_http = true"
    )


def _tls_files(server: dict[str, Any], base: Path | None) -> tuple[Path | None, Path | None]:
    paths: list[Path | None] = []
    for key in ("tls_cert_file", "tls_key_file"):
        value = server.get(key)
        if value is None:
            paths.append(None)
            continue
        if not isinstance(value, str) or not value:
            raise ConfigError(f"server.{key} must be a file path")
        path = Path(value)
        paths.append(base / path if base is not None and not path.is_absolute() else path)
    if (paths[0] is None) != (paths[1] is None):
        raise ConfigError("server.tls_cert_file and server.tls_key_file go together: give both")
    return paths[0], paths[1]


def load_config(path: str | Path) -> Config:
    p = Path(path)
    try:
        doc = tomllib.loads(p.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{p}: {e}") from e
    return config_from_dict(doc, base=p.parent)


def config_from_dict(doc: dict[str, Any], base: Path | None = None) -> Config:
    unknown = set(doc) - {"server", "topology", "agent", "dry_run"}
    if unknown:
        raise ConfigError(f"unknown sections {sorted(unknown)}")
    server = doc.get("server", {})
    agent = doc.get("agent", {})
    cfg = Config()
    bad = set(server) - {
        "listen",
        "port",
        "token",
        "token_file",
        "tls_cert_file",
        "tls_key_file",
        "allow_plain_http",
    }
    bad |= set(agent) - {"backend", "lease_seconds", "max_lease_seconds", "state_dir"}
    if bad:
        raise ConfigError(f"unknown keys {sorted(bad)}")
    cfg.listen = str(server.get("listen", cfg.listen))
    cfg.port = int(server.get("port", cfg.port))
    if "token_file" in server:
        tf = Path(server["token_file"])
        if base is not None and not tf.is_absolute():
            tf = base / tf
        try:
            cfg.token = tf.read_text("utf-8").strip()
        except OSError as e:
            raise ConfigError(f"server.token_file: {e}") from e
    elif "token" in server:
        cfg.token = str(server["token"])
    if cfg.token is not None and len(cfg.token) < 16:
        raise ConfigError("server.token must be at least 16 characters")
    cfg.tls_cert_file, cfg.tls_key_file = _tls_files(server, base)
    allow = server.get("allow_plain_http", False)
    if not isinstance(allow, bool):
        raise ConfigError("server.allow_plain_http must be true or false")
    cfg.allow_plain_http = allow
    problem = transport_problem(cfg)
    if problem:
        raise ConfigError(problem)
    cfg.topology = make_topology(doc.get("topology", {}))
    cfg.backend = agent.get("backend", "netlink")
    if cfg.backend not in ("netlink", "dry-run"):
        raise ConfigError('agent.backend must be "netlink" or "dry-run"')
    cfg.lease_seconds = float(agent.get("lease_seconds", cfg.lease_seconds))
    cfg.max_lease_seconds = float(agent.get("max_lease_seconds", cfg.max_lease_seconds))
    if not 0 < cfg.lease_seconds <= cfg.max_lease_seconds:
        raise ConfigError("agent.lease_seconds must be > 0 and <= max_lease_seconds")
    sd = Path(agent.get("state_dir", str(cfg.state_dir)))
    if base is not None and not sd.is_absolute():
        sd = base / sd
    cfg.state_dir = sd
    dry = doc.get("dry_run", {})
    cfg.dry_run_interfaces = [str(x) for x in dry.get("interfaces", [])]
    return cfg
