"""Level A, OVS actuator: the daemon, fed injected measurements, moves the game flow's
packets between the uplinks by ovs-ofctl (20 switches, timed on per-uplink arrivals).

Would catch: a decision that never reaches the actuator, a rule that does not match the
flow (no packet on the new uplink), a rule added beside the old one (packets keep
arriving on the old uplink), a confirm that reads the wrong rule, switch times beyond the
bound, a daemon whose state disagrees with the switch.
"""

from __future__ import annotations

import pytest
from lab import Lab
from switching import Steering, steer_config, summarize, switch_many

pytestmark = pytest.mark.system

SWITCHES = 20


def test_ovs_moves_packets_between_uplinks(ovs_lab: Lab) -> None:
    rundir = ovs_lab.switch.env["OVS_RUNDIR"]
    actuator = {"kind": "ovs", "bridge": "br0", "ovs_rundir": rundir, "deadline_s": 1.0}
    steering = Steering(steer_config(actuator))
    steering.daemon.actuator.check()
    ovs_lab.start_traffic()
    steering.start()
    try:
        switches = switch_many(ovs_lab, steering, SWITCHES, settle_s=0.15)
        summary = summarize("ovs", switches, steering.events.kinds().count("retry"))
        assert steering.active_path() == "a"  # 20 switches a→b→…: back on a
    finally:
        steering.stop()
    assert summary["decision_to_first_packet_s"]["p95"] <= 1.0, summary
    assert summary["late_packets_on_old_max"] <= 3, summary
