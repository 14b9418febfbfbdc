"""Open vSwitch commands: linux-htb queues (ovs-vsctl), meters and flows (ovs-ofctl).

For a bridge *without* an OpenFlow controller (flows end in ``NORMAL``); with Faucet or
another controller use that controller's export instead. Units as OVS takes them:
queue ``min-rate``/``max-rate`` in bit/s (``other-config`` of the Queue table), meter
``rate`` in kbit/s and ``burst_size`` in kbit (``kbps,burst``), DSCP as ``ip_dscp``
(0–63) via ``set_field`` (OpenFlow 1.3). Each (class, direction) gets queue and meter id
= its 1-based index; downstream flows queue on the client-side port, upstream on the
server-side port; HTB ``priority=0`` (served first).

OVS cannot express: delay or loss objectives or path selection (bounds are in the
comments; path choice is ``qoe-analysis policy check``); linux-htb needs the kernel
datapath's Linux devices — the userspace (``netdev``) datapath ignores it.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from qoe_analysis.policy.adapters.common import Topology, exported_flows, header_lines

__all__ = ["OVS_LIMITS", "ovs_commands", "to_ovs_script"]

FLOW_PRIORITY = 40000
OVS_LIMITS = [
    "delay and loss bounds: no latency/loss objective or path selection in OVS; "
    "path choice is `qoe-analysis policy check`",
    "linux-htb queues apply to kernel-datapath ports; the userspace datapath ignores them",
]


def ovs_commands(policy: Mapping[str, Any], topology: Topology) -> list[list[str]]:
    """The commands as argv lists, in the order they must run."""
    traffic = policy["traffic"]
    flows = exported_flows(policy)
    commands: list[list[str]] = []
    for port_name, downstream in (
        (topology.client_port_name, True),
        (topology.server_port_name, False),
    ):
        on_port = [f for f in flows if f.from_server == downstream]
        if not on_port:
            continue
        qos = f"@qos_{port_name}".replace("-", "_")
        argv = ["ovs-vsctl", "--", "set", "port", port_name, f"qos={qos}"]
        argv += ["--", f"--id={qos}", "create", "qos", "type=linux-htb"]
        argv += [f"queues:{f.index}=@q{f.index}" for f in on_port]
        for f in on_port:
            argv += [
                "--",
                f"--id=@q{f.index}",
                "create",
                "queue",
                f"other-config:min-rate={int(traffic['queue_min_rate_bps'])}",
                f"other-config:max-rate={int(traffic['queue_max_rate_bps'])}",
                "other-config:priority=0",
            ]
        commands.append(argv)
    of = ["ovs-ofctl", "-O", "OpenFlow13"]
    for f in flows:
        commands.append(
            [
                *of,
                "add-meter",
                topology.bridge,
                f"meter={f.index},kbps,burst,band=type=drop,"
                f"rate={int(traffic['meter_rate_kbps'])},"
                f"burst_size={int(traffic['meter_burst_kbits'])}",
            ]
        )
    for f in flows:
        side = "src" if f.from_server else "dst"
        proto = f.protocol + ("6" if f.ip_version == 6 else "")
        ip_field = f"ipv6_{side}" if f.ip_version == 6 else f"nw_{side}"
        match = [f"table=0,priority={FLOW_PRIORITY}", proto, f"{ip_field}={f.server_ip}"]
        if f.server_port is not None:
            match.append(f"{f.protocol}_{side}={f.server_port}")
        actions = f"meter:{f.index},set_field:{f.dscp}->ip_dscp,set_queue:{f.index},NORMAL"
        commands.append([*of, "add-flow", topology.bridge, ",".join(match) + ",actions=" + actions])
    return commands


def to_ovs_script(policy: Mapping[str, Any], topology: Topology) -> str:
    """A POSIX shell script running :func:`ovs_commands`, one line per command."""
    lines = ["#!/bin/sh"]
    lines += [f"# {line}" for line in header_lines(policy, "ovs", OVS_LIMITS)]
    lines += [f"# {f.summary()}" for f in exported_flows(policy)]
    lines.append("set -eu")
    lines += [shlex.join(argv) for argv in ovs_commands(policy, topology)]
    return "\n".join(lines) + "\n"
