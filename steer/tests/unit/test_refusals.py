"""Refused at start: ``qoe-steer run --config`` with a bad policy exits 2 with one line
naming the policy file and the problem, before any status server or probe starts; and
the shipped steer/config.example.toml passes ``qoe-steer check-config``.

Would catch: a daemon that starts on a policy for another application or another schema
version (it would steer by bounds it does not understand), a traceback instead of one
line, a refusal that does not name the file, an example config that drifted from the
validator.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import POLICY, ROOT


def _qoe_steer(*args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "qoe_steer.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)


def _other_application(doc: dict[str, object]) -> str:
    classes = doc["classes"]
    assert isinstance(classes, list)
    for c in classes:
        c["application"] = "video-streaming"
    return json.dumps(doc)


def _next_version(doc: dict[str, object]) -> str:
    doc["policy_version"] = "3.0"
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            _other_application,
            "classes/0/application: 'cloud-gaming' was expected",
        ),
        (_next_version, "policy_version '3.0' is not supported (this qoe-steer reads '2.0')"),
        (lambda doc: json.dumps(doc)[:-40], "not JSON:"),
    ],
    ids=["other-application", "unknown-version", "not-json"],
)
def test_run_refuses_a_bad_policy_with_one_line(
    write_config: Callable[..., Path],
    tmp_path: Path,
    make: Callable[[dict[str, object]], str],
    message: str,
) -> None:
    bad = tmp_path / "bad.policy.json"
    bad.write_text(make(json.loads(POLICY.read_text())))
    config = write_config({str(POLICY): str(bad)})
    done = _qoe_steer("run", "--config", str(config))
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"qoe-steer: policy {bad}: ") and message in done.stderr
    assert "status on" not in done.stderr


def test_run_refuses_a_policy_without_the_configured_application(
    write_config: Callable[..., Path],
) -> None:
    source = f'source = "{POLICY}"'
    config = write_config({source: f'{source}\napplication = "video-streaming"'})
    done = _qoe_steer("run", "--config", str(config))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    expected = "no class of application 'video-streaming' (the policy is for cloud-gaming)"
    assert f"policy {POLICY}: {expected}" in done.stderr


def test_the_example_config_is_valid() -> None:
    done = _qoe_steer("check-config", str(ROOT / "steer" / "config.example.toml"))
    assert done.returncode == 0, done.stderr
    assert "ok (2 paths, 1 flows, actuator ovs" in done.stdout
