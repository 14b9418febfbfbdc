"""fixtures/policies/ (the examples docs/policy.md points to) match the current code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from json_compare import differences
from qoe_analysis.cli import main

from .conftest import REPO

FIXTURES = REPO / "fixtures" / "policies"
EXTENSIONS = {"faucet": "yaml", "ovs": "sh", "onos": "json", "rest_qos": "json", "ietf": "json"}


def test_policy_fixture_is_current(study_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "policy.json"
    argv = [
        "policy", "export", str(study_dir / "ratings.csv"), "--format", "json",
        "--server-ip", "198.51.100.7", "--server-port", "5004", "--study-id",
        "dissertation-shape", "--study-title",
        "Synthetic study in the dissertation's shape (seed 2013)", "--study-version", "1",
        "--generated-at", "2026-01-01T00:00:00Z", "--out", str(out),
    ]  # fmt: skip
    assert main(argv) == 0
    expected = json.loads((FIXTURES / "dissertation_shape.policy.json").read_text())
    actual = json.loads(out.read_text())
    for doc in (expected, actual):  # the tool version moves on; the content must not
        doc["provenance"]["tool"].pop("version")
        doc["provenance"].pop("analysis_version")
    assert differences(actual, expected) == []


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_format_fixtures_are_current(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    policy = FIXTURES / "dissertation_shape.policy.json"
    assert main(["policy", "export", str(policy), "--format", fmt]) == 0
    expected = (FIXTURES / f"dissertation_shape.{fmt}.{EXTENSIONS[fmt]}").read_text()
    assert capsys.readouterr().out == expected


def test_check_fixture_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "policy", "check", str(FIXTURES / "dissertation_shape.policy.json"),
        "--measurements", str(FIXTURES / "measurements.example.json"),
    ]  # fmt: skip
    assert main(argv) == 0
    expected = json.loads((FIXTURES / "dissertation_shape.check.json").read_text())
    assert json.loads(capsys.readouterr().out) == expected
