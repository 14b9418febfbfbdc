"""Faucet's own config checker (`check_faucet_config`) on the exported YAML."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import yaml
from qoe_analysis.policy import Topology, build_policy, export_policy
from qoe_analysis.policy.adapters.faucet import check_meters

from .conftest import FAST_FLOW


def run_checker(venv: Path, config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "check_faucet_config"), str(config)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_faucet_accepts_the_export(
    faucet_venv: Path, study_doc: dict[str, Any], tmp_path: Path
) -> None:
    flows = {
        **FAST_FLOW,
        "cloud-gaming.slow": {"server_ip": "198.51.100.9/32", "server_port": 5006},
        "cloud-gaming": {"server_ip": "2001:db8::10", "protocol": "tcp"},
    }
    policy = build_policy(study_doc, provenance={"study_id": "synthetic"}, flows=flows)
    config = tmp_path / "faucet.yaml"
    config.write_text(export_policy(policy, "faucet", topology=Topology(dpid=0x2A)))
    started = time.monotonic()
    done = run_checker(faucet_venv, config)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    # the checker prints the parsed datapath: our ACL and meters went through it
    assert "'dp_id': 42" in done.stdout.replace('"', "'").replace("\\n", "")
    assert "qoe-policy" in done.stdout
    print(f"check_faucet_config: {elapsed:.1f} s")


def test_faucet_rejects_a_broken_config(faucet_venv: Path, tmp_path: Path) -> None:
    """The checker is real: an ACL using an undefined meter fails it."""
    config = tmp_path / "broken.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "acls": {"a": [{"rule": {"actions": {"meter": "nope", "allow": 1}}}]},
                "vlans": {"v": {"vid": 100}},
                "dps": {
                    "s": {"dp_id": 1, "interfaces": {1: {"native_vlan": "v", "acls_in": ["a"]}}}
                },
            }
        )
    )
    assert run_checker(faucet_venv, config).returncode != 0


def test_band_fields_faucet_lets_through_are_caught(faucet_venv: Path, tmp_path: Path) -> None:
    """A misspelt band type passes Faucet's checker; the exporter's own check catches it."""
    cfg = {
        "meters": {"m": {"meter_id": 1, "entry": {"flags": ["KBPS"], "bands": [
            {"type": "DORP", "rate": 100}]}}},
        "acls": {"a": [{"rule": {"actions": {"meter": "m", "allow": 1}}}]},
        "vlans": {"v": {"vid": 100}},
        "dps": {"s": {"dp_id": 1, "hardware": "Open vSwitch",
                      "interfaces": {1: {"native_vlan": "v", "acls_in": ["a"]}}}},
    }  # fmt: skip
    config = tmp_path / "band.yaml"
    config.write_text(yaml.safe_dump(cfg))
    assert run_checker(faucet_venv, config).returncode == 0
    assert check_meters(cfg) == ["meters.m.entry.bands[0].type 'DORP' not one of DROP, DSCP_REMARK"]
