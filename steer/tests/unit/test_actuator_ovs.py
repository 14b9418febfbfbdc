"""OvsActuator against a fake ovs-ofctl (a script that logs its argv and prints canned output).

Would catch: a rule without the cookie/priority/match, a confirm that accepts the wrong port
or another flow's rule, a hanging or failing ovs-ofctl not turned into a one-line error.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from qoe_steer.actuators.base import ActuatorError
from qoe_steer.actuators.ovs import OvsActuator, flow_cookie
from qoe_steer.model import FlowSpec, PathSpec

FLOW = FlowSpec("game", "cloud-gaming.fast", {"udp_dst": 5004})
A, B = PathSpec("a", "10.0.0.2", 7001, "uplink-a"), PathSpec("b", "10.0.0.2", 7002, "3")
SHOW = """OFPT_FEATURES_REPLY (OF1.3) (xid=0x2): dpid:0000000000000051
 1(sw-srv): addr:aa:bb:cc:dd:ee:01
 2(uplink-a): addr:aa:bb:cc:dd:ee:02
 3(uplink-b): addr:aa:bb:cc:dd:ee:03
"""


def fake_ofctl(tmp_path: Path, dump: str, *, fail: str = "", sleep: float = 0) -> Path:
    (tmp_path / "show.txt").write_text(SHOW)
    (tmp_path / "dump.txt").write_text(dump)
    script = tmp_path / "ovs-ofctl"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {tmp_path}/argv.log\n'
        f"sleep {sleep}\n"
        + (f'echo "{fail}" >&2; exit 1\n' if fail else "")
        + f'case "$3" in show) cat {tmp_path}/show.txt;;'
        + f" --no-names) cat {tmp_path}/dump.txt;; esac\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_move_adds_cookie_rule_to_the_named_port(tmp_path: Path) -> None:
    actuator = OvsActuator("br0", ofctl=str(fake_ofctl(tmp_path, "")))
    actuator.check()
    actuator.move(FLOW, A)
    log = (tmp_path / "argv.log").read_text().splitlines()
    assert log[-1] == (
        f"-O OpenFlow13 add-flow br0 cookie={flow_cookie('game'):#x},priority=40000,"
        "eth_type=0x800,ip_proto=17,udp_dst=5004,actions=output:2"
    )


def test_confirm_reads_the_rule_back_by_cookie(tmp_path: Path) -> None:
    line = (f" cookie={flow_cookie('game'):#x}, duration=1.2s, table=0, n_packets=9, "
            "priority=40000,udp,tp_dst=5004 actions=output:3\n")  # fmt: skip
    actuator = OvsActuator("br0", ofctl=str(fake_ofctl(tmp_path, line)))
    assert actuator.confirm(FLOW, B)
    assert not actuator.confirm(FLOW, A)
    assert actuator.current(FLOW) == "3"
    assert f"cookie={flow_cookie('game'):#x}/-1" in (tmp_path / "argv.log").read_text()
    assert flow_cookie("game") != flow_cookie("game2") and flow_cookie("game") >> 48 == 0x5157


def test_no_rule_means_not_confirmed(tmp_path: Path) -> None:
    actuator = OvsActuator("br0", ofctl=str(fake_ofctl(tmp_path, "")))
    assert actuator.current(FLOW) is None and not actuator.confirm(FLOW, B)


def test_failures_are_one_line_errors(tmp_path: Path) -> None:
    failing = OvsActuator("br0", ofctl=str(fake_ofctl(tmp_path, "", fail="br0 is not\na bridge")))
    with pytest.raises(ActuatorError, match=r"^ovs: show br0: br0 is not a bridge$"):
        failing.check()
    slow = OvsActuator("br0", ofctl=str(fake_ofctl(tmp_path, "", sleep=3)), timeout_s=0.3)
    with pytest.raises(ActuatorError, match="timed out"):
        slow.move(FLOW, B)
    missing = OvsActuator("br0", ofctl=str(tmp_path / "nope"))
    with pytest.raises(ActuatorError, match="cannot run"):
        missing.check()
    unknown = OvsActuator("br0", ofctl=str(fake_ofctl(tmp_path, "")))
    with pytest.raises(ActuatorError, match="no port named 'uplink-z'"):
        unknown.move(FLOW, PathSpec("z", "h", 1, "uplink-z"))


def test_registered_and_config_checked(tmp_path: Path) -> None:
    from qoe_steer.actuators.registry import KINDS, create_actuator
    from qoe_steer.config import ActuatorConfig, ConfigError

    assert {"ovs", "faucet", "osken"} <= set(KINDS)
    options = KINDS["ovs"].validate({"bridge": "br0", "ovs_rundir": str(tmp_path)})
    actuator = create_actuator(ActuatorConfig("ovs", 0.5, 1, options), [A, B], [FLOW])
    assert isinstance(actuator, OvsActuator) and actuator.env is not None
    assert actuator.env["OVS_RUNDIR"] == str(tmp_path) and actuator.retries == 1
    with pytest.raises(ConfigError, match=r"actuator\.bridge: missing"):
        KINDS["ovs"].validate({})
    with pytest.raises(ConfigError, match=r"actuator\.brige: unknown key for kind 'ovs'"):
        KINDS["ovs"].validate({"bridge": "br0", "brige": "x"})
    with pytest.raises(ActuatorError, match=r"flow g: match\.proto"):
        create_actuator(
            ActuatorConfig("ovs", 0.5, 1, options), [A], [FlowSpec("g", "c", {"proto": "x"})]
        )
