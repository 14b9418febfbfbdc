"""Level A, os-ken actuator: the daemon, fed injected measurements, moves the game flow
through the steering app (flow mod + barrier), 20 switches timed on per-uplink arrivals.

Would catch: a match os-ken cannot build (400/error), a confirm that does not wait for the
barrier reply, a flow mod the switch does not apply (no packet on the new uplink), a rule
added beside the old one (packets keep arriving on the old uplink).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from controllers import start_osken
from lab import Lab
from switching import Steering, steer_config, summarize, switch_many

pytestmark = pytest.mark.system

SWITCHES = 20


def test_osken_moves_packets_between_uplinks(controlled_lab: Lab, tool_venv: Path) -> None:
    socket_path = controlled_lab.switch.dir / "osken.sock"
    start_osken(controlled_lab, tool_venv, socket_path)
    steering = Steering(
        steer_config({"kind": "osken", "socket": str(socket_path), "deadline_s": 1.0})
    )
    steering.daemon.actuator.check()
    controlled_lab.start_traffic()
    steering.start()
    try:
        switches = switch_many(controlled_lab, steering, SWITCHES, settle_s=0.15)
        summary = summarize("osken", switches, steering.events.kinds().count("retry"))
        assert steering.active_path() == "a"
    finally:
        steering.stop()
    assert summary["decision_to_first_packet_s"]["p95"] <= 1.0, summary
    assert summary["late_packets_on_old_max"] <= 3, summary
