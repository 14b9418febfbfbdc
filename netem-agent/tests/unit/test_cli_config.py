"""CLI (dry-run) and configuration parsing; UML prerequisite reporting."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from netem_agent import __version__, cli
from netem_agent.config import ConfigError, config_from_dict, load_config
from netem_agent.testing import uml
from netem_agent.testing.stats import binomial_interval

PROFILE = {"upstream": {"delay_ms": 80}, "downstream": {"loss_pct": 1}}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "netem_agent.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
    )


def test_version() -> None:
    p = run("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"netem-agent {__version__}"


def test_apply_dry_run_prints_installed_state_and_operations(tmp_path: Path) -> None:
    p = run(
        "apply",
        "--dry-run",
        "--client-iface",
        "eth-c",
        "--server-iface",
        "eth-s",
        "--state-dir",
        str(tmp_path),
        "-",
        stdin=json.dumps(PROFILE),
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["installed"]["upstream"]["delay_ms"] == 80
    assert out["lease_expires_at"] is None  # the CLI holds until `clear`
    assert [o["dev"] for o in out["operations"]] == ["eth-s", "eth-c"]


def test_apply_single_mode_from_file(tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_text(json.dumps(PROFILE))
    p = run("apply", "--dry-run", "--iface", "eth0", "--state-dir", str(tmp_path), str(f))
    assert p.returncode == 0, p.stderr
    ops = json.loads(p.stdout)["operations"]
    assert ops[0] == {**ops[0], "op": "link_add", "name": "qoeifb0"}


@pytest.mark.parametrize(
    "args,stdin,text",
    [
        (["--client-iface", "a"], json.dumps(PROFILE), "--server-iface"),
        (["--iface", "a", "--client-iface", "b"], json.dumps(PROFILE), "excludes"),
        (
            ["--client-iface", "a", "--server-iface", "b"],
            '{"upstream": {"loss_pct": 150}}',
            "loss_pct",
        ),
        (["--client-iface", "a", "--server-iface", "b"], "not json", "cannot read"),
    ],
)
def test_apply_usage_errors(tmp_path: Path, args: list[str], stdin: str, text: str) -> None:
    p = run("apply", "--dry-run", *args, "--state-dir", str(tmp_path), "-", stdin=stdin)
    assert p.returncode == 2
    assert text in p.stderr


def test_check_reports_missing_interface(tmp_path: Path) -> None:
    p = run("check", "--client-iface", "nosuch-a", "--server-iface", "nosuch-b")
    assert p.returncode == 1
    report = json.loads(p.stdout)
    failed = {c["check"] for c in report["checks"] if not c["ok"]}
    assert {"interface nosuch-a", "interface nosuch-b"} <= failed


def test_main_without_command_prints_help() -> None:
    assert cli.main([]) == 2


def test_config_example_parses(tmp_path: Path) -> None:
    example = (Path(__file__).parents[2] / "config.example.toml").read_text()
    (tmp_path / "token").write_text("0123456789abcdef0123\n")
    assert 'token_file = "/etc/netem-agent/token"' in example
    cfg_file = tmp_path / "agent.toml"
    cfg_file.write_text(example.replace("/etc/netem-agent/token", "token"))
    cfg = load_config(cfg_file)
    assert cfg.backend == "netlink" and cfg.topology.mode == "bridge"
    assert cfg.token == "0123456789abcdef0123"
    assert cfg.topology.client_iface == "enp2s0" and cfg.topology.server_iface == "enp3s0"


@pytest.mark.parametrize(
    "doc,text",
    [
        ({"topology": {"mode": "bridge", "client_iface": "a"}}, "server_iface"),
        ({"topology": {"mode": "bridge", "client_iface": "a", "server_iface": "a"}}, "differ"),
        ({"topology": {"mode": "mesh"}}, "mode"),
        ({"topology": {"mode": "single", "iface": "a", "role": "router"}}, "role"),
        ({"topology": {"mode": "single", "iface": "a-very-long-interface-name"}}, "invalid"),
        ({"topology": {"mode": "single", "iface": "a", "flow": {"server_addr": "x"}}}, "IPv4"),
        (
            {
                "topology": {
                    "mode": "single",
                    "iface": "a",
                    "flow": {"server_addr": "10.0.0.1", "ports": [0]},
                }
            },
            "ports",
        ),
        ({"server": {"token": "short"}, "topology": {"mode": "single", "iface": "a"}}, "16"),
        ({"agent": {"backend": "tc"}, "topology": {"mode": "single", "iface": "a"}}, "backend"),
        ({"agent": {"lease_seconds": 0}, "topology": {"mode": "single", "iface": "a"}}, "lease"),
        ({"extra": {}}, "unknown"),
    ],
)
def test_config_errors(doc: dict, text: str) -> None:
    with pytest.raises(ConfigError, match=text):
        config_from_dict(doc)


def test_missing_uml_names_the_debian_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uml, "UML_BINARY", "/nonexistent/linux.uml")
    monkeypatch.setattr(uml.shutil, "which", lambda name: None)
    with pytest.raises(uml.Missing, match="user-mode-linux"):
        uml.find_uml()


def test_binomial_interval() -> None:
    assert binomial_interval(100, 0.5, 0.95) == (40, 60)
    assert binomial_interval(3000, 0.0, 0.99) == (0, 0)
    lo, hi = binomial_interval(3000, 0.01, 0.99)
    assert lo < 30 < hi
