"""Level A, Faucet actuator: the daemon, fed injected measurements, rewrites the ACL's
output, sends SIGHUP and confirms by the config hash and the flow table; 20 switches
timed on per-uplink arrivals.

Would catch: a rewritten file Faucet rejects (hash never appears), a hash computed
differently from Faucet's (never confirmed: retries), an ACL change Faucet does not push
to the switch (no packet on the new uplink), switch times beyond the bound.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from controllers import faucet_table, start_faucet
from lab import Lab, in_netns
from switching import Steering, steer_config, summarize, switch_many

pytestmark = pytest.mark.system

SWITCHES = 20


def test_faucet_moves_packets_between_uplinks(controlled_lab: Lab, tool_venv: Path) -> None:
    process, config = start_faucet(controlled_lab, tool_venv)
    steering = Steering(steer_config(faucet_table(controlled_lab, config, process.pid, 3.0)))
    netns = controlled_lab.switch.netns
    in_netns(netns, steering.daemon.actuator.check)  # Prometheus is on the ns's loopback
    controlled_lab.start_traffic()
    in_netns(netns, steering.start)  # the daemon's threads are created in the switch ns
    try:
        switches = switch_many(controlled_lab, steering, SWITCHES, settle_s=0.3)
        summary = summarize("faucet", switches, steering.events.kinds().count("retry"))
        assert steering.active_path() == "a"
    finally:
        steering.stop()
    assert summary["decision_to_first_packet_s"]["p95"] <= 3.0, summary
    assert summary["late_packets_on_old_max"] <= 5, summary
