"""`netem-agent check`: prerequisites of the box (privileges, kernel modules, interfaces)."""

from __future__ import annotations

import os
import socket
from typing import Any

from netem_agent.backends import module_status
from netem_agent.config import Config

CAP_NET_ADMIN = 12
PACKAGE_HINT = (
    "the module ships with the kernel image (Debian: linux-image-$(uname -r); "
    "Ubuntu: linux-modules-extra-$(uname -r)); load it with `modprobe {name}`"
)


def has_net_admin() -> bool:
    if os.geteuid() == 0:
        return True
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> CAP_NET_ADMIN & 1)
    except OSError:
        pass
    return False


def run_checks(cfg: Config) -> dict[str, Any]:
    checks: list[dict[str, Any]] = []

    def add(name: str, ok: bool, detail: str, required: bool = True) -> None:
        checks.append({"check": name, "ok": ok, "required": required, "detail": detail})

    add(
        "root or CAP_NET_ADMIN",
        has_net_admin(),
        "ok"
        if has_net_admin()
        else "run as root or grant CAP_NET_ADMIN "
        "(the systemd unit sets AmbientCapabilities=CAP_NET_ADMIN)",
    )
    t = cfg.topology
    modules = ["sch_netem"]
    if t.mode == "single":
        modules += ["ifb", "sch_ingress", "cls_matchall", "act_mirred"]
    if t.flow is not None:
        modules += ["sch_prio", "cls_u32"]
    for m in modules:
        st = module_status(m)
        add(
            f"kernel module {m}",
            st["available"],
            st["how"] if st["available"] else PACKAGE_HINT.format(name=m),
        )
    names = {name for _, name in socket.if_nameindex()}
    for iface in t.interfaces():
        add(
            f"interface {iface}",
            iface in names,
            "present"
            if iface in names
            else f"no interface named {iface!r}; present: {sorted(names)}",
        )
    if cfg.backend == "dry-run":
        for c in checks:
            c["required"] = False
    # `serve` needs a loadable TLS pair whatever the backend: required even in dry-run.
    if cfg.tls_cert_file is not None and cfg.tls_key_file is not None:
        from netem_agent.config import ConfigError
        from netem_agent.tls import fingerprint, server_context

        try:
            server_context(cfg.tls_cert_file, cfg.tls_key_file)
            add(
                "TLS certificate and key",
                True,
                f"{cfg.tls_cert_file}: SHA-256 "
                + fingerprint(cfg.tls_cert_file.read_text("ascii", errors="replace")),
            )
        except (ConfigError, OSError) as e:
            add("TLS certificate and key", False, str(e))
    else:
        add(
            "TLS",
            True,
            "plain HTTP on a loopback address"
            if not cfg.allow_plain_http
            else "plain HTTP allowed (allow_plain_http): the token crosses the network in clear",
            required=False,
        )
    ok = all(c["ok"] for c in checks if c["required"])
    return {"ok": ok, "backend": cfg.backend, "topology": t.to_dict(), "checks": checks}
