"""`qoe-analysis policy export|check`: formats, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from qoe_analysis.cli import main
from qoe_analysis.policy import FORMATS, validate_policy

from .conftest import GENERATED_AT


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, study_dir: Path) -> Path:
    out = tmp_path_factory.mktemp("policy") / "policy.json"
    code = main(
        [
            "policy", "export", str(study_dir / "ratings.csv"), "--format", "json",
            "--server-ip", "198.51.100.7", "--server-port", "5004", "--study-id", "demo",
            "--generated-at", GENERATED_AT, "--rate-kbps", "4000", "--out", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    return out


def test_export_json_from_ratings(exported: Path) -> None:
    policy = json.loads(exported.read_text())
    validate_policy(policy)
    assert policy["provenance"]["source"] == "ratings.csv"
    assert policy["provenance"]["study"]["id"] == "demo"
    assert policy["traffic"]["stream_kbps"] == 4000.0
    assert policy["traffic"]["meter_rate_kbps"] == 5000
    assert policy["classes"][-1]["flow_match"]["server_port"] == 5004


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "json"])
def test_every_format_from_a_policy(
    exported: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["policy", "export", str(exported), "--format", fmt, "--dpid", "16"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    if fmt == "faucet":
        assert yaml.safe_load(out)["dps"]["qoe-edge"]["dp_id"] == 16
    elif fmt == "ovs":
        assert "meter=1,kbps,burst" in out
    else:
        json.loads(out)


def test_placeholder_selector_warns(study_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policy", "export", str(study_dir / "ratings.csv"), "--format", "ovs"]) == 0
    out, err = capsys.readouterr()
    assert "nw_src=192.0.2.10/32" in out
    assert err.count("\n") == 1 and "placeholder 192.0.2.10/32" in err


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err


def test_unknown_format(exported: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policy", "export", str(exported), "--format", "netconf"]) == 2
    assert "unknown format 'netconf'" in one_line_error(capsys)


def test_bad_policy_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "qoe-lab-policy"}')
    assert main(["policy", "export", str(bad), "--format", "ovs"]) == 2
    assert "invalid policy: (root)" in one_line_error(capsys)
    assert main(["policy", "export", str(tmp_path / "none.csv")]) == 2
    assert "No such file" in one_line_error(capsys)


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_check(exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = {
        "paths": [
            {"id": "fiber", "downstream": {"delay_ms": 20, "loss_pct": 0},
             "upstream": {"delay_ms": 20, "loss_pct": 0}},
            {"id": "satellite", "downstream": {"delay_ms": 300, "loss_pct": 0.5},
             "upstream": {"delay_ms": 300, "loss_pct": 0.5}},
        ]
    }  # fmt: skip
    assert (
        main(
            ["policy", "check", str(exported), "--measurements", str(write(tmp_path, "m.json", m))]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    for cls in report["classes"]:
        assert cls["acceptable_paths"] == ["fiber"], cls["class"]
        sat = next(p for p in cls["paths"] if p["path"] == "satellite")
        # the joint corner bounds loss too (0.5 % is beyond it, reached with 300 ms delay)
        kinds = {v["metric_type"] for v in sat["violations"]}
        assert kinds == {"one-way-delay-maximum", "one-way-packet-loss"}
        assert sat["acceptable"] is False and 0.0 <= sat["p_acceptable"] <= 1.0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid measurements: "),
        ({"paths": []}, "invalid measurements: paths: [] should be non-empty"),
        ({"paths": [{"id": "x", "downstream": {"delay_ms": "slow", "loss_pct": 0},
                     "upstream": {"delay_ms": 1, "loss_pct": 0}}]},
         "paths/0/downstream/delay_ms: 'slow' is not of type 'number'"),
    ],
)  # fmt: skip
def test_check_bad_measurements(
    exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, message: str
) -> None:
    m = write(tmp_path, "m.json", content)
    assert main(["policy", "check", str(exported), "--measurements", str(m)]) == 2
    assert message in one_line_error(capsys)


def test_existing_commands_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("qoe-analysis ")
    assert main([]) == 0
    assert "policy" in capsys.readouterr().out


def test_mostly_dry_run_ratings_need_allow_dry_run(
    study_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (study_dir / "ratings.csv").read_text().splitlines()
    # 60 % of the ratings on a dry-run agent (the rest applied by netlink)
    cut = round(0.6 * (len(lines) - 1))
    rows = [f"{line},{'dry-run' if i < cut else 'netlink'}" for i, line in enumerate(lines[1:])]
    ratings = write(tmp_path, "dry.csv", "\n".join([lines[0] + ",agent_backend", *rows]) + "\n")
    argv = ["policy", "export", str(ratings), "--format", "faucet", "--server-ip", "198.51.100.7"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "were taken on a dry-run agent" in err and "--allow-dry-run" in err
    assert main([*argv, "--allow-dry-run"]) == 0
    text = capsys.readouterr().out
    assert f"dry-run ratings: {cut} of {len(rows)} (60%)" in text
    assert "learnt mostly from play without any impairment applied" in text
