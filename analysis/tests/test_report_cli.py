"""The analysis document, the CLI contract and the public API."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis import __version__, analyze
from qoe_analysis.cli import main
from qoe_analysis.report import NoReliableRatersError, _rater_status, rows_of

CONDITION_KEYS = {
    "scenario",
    "game",
    "n",
    "mos",
    "sos",
    "ci95_low",
    "ci95_high",
    "gob_pct",
    "pow_pct",
}


def test_document_shape(study_doc: dict[str, Any]) -> None:
    assert {"conditions", "sos_hypothesis", "reliability", "weights", "tree", "thresholds"} <= set(
        study_doc
    )
    assert all(set(c) >= CONDITION_KEYS for c in study_doc["conditions"])
    assert len(study_doc["conditions"]) == 10 * 3 + 10  # scenario x game + scenario x all
    assert "a" in study_doc["sos_hypothesis"]
    rel = study_doc["reliability"]
    assert {"intra", "reliable_raters", "inter", "screening"} <= set(rel)
    assert len(rel["intra"]) == 58
    assert set(study_doc["weights"]["weka"]) == set(study_doc["weights"]["rapidminer"])
    assert study_doc["tree"]["rules"] and all("text" in r for r in study_doc["tree"]["rules"])
    json.dumps(study_doc, allow_nan=False)


def test_screening_statuses_and_subject_model(study_doc: dict[str, Any]) -> None:
    rel = study_doc["reliability"]
    statuses = {"reliable", "unreliable", "not_assessable"}
    assert len(rel["rater_status"]) == 58
    for entry in rel["rater_status"]:
        for rule in ("intra_rater", "p913", "straight_lining"):
            assert entry[rule] in statuses
    # the reasons live in each rule's table
    assert all(r["reason"] for r in rel["intra"] + rel["screening"]["p913"]["per_rater"])
    flat = rel["screening"]["straight_lining"]["per_rater"]
    assert {r["rater_id"] for r in flat} == {
        e["rater_id"] for e in rel["rater_status"] if e["straight_lining"] != "reliable"
    }
    assert flat and all("same rating for every scenario" in r["reason"] for r in flat)
    for rule, rejected in rel["rejected_by_rule"].items():
        by = {e["rater_id"]: e[rule] for e in rel["rater_status"]}
        assert rejected == sorted(r for r, s in by.items() if s == "unreliable")
        assert rel["not_assessable_by_rule"][rule] == sorted(
            r for r, s in by.items() if s == "not_assessable"
        )
    # a rater with undefined rho is not assessable, never "unreliable" (a defined rho on
    # too little evidence is not assessable too: issue 31)
    for row in rel["intra"]:
        assert row["rho"] is not None or row["status"] == "not_assessable"
        assert row["status"] != "reliable" or row["rho"] is not None
    p913 = rel["screening"]["p913"]
    assert p913["threshold"] == 0.75 and p913["r2_threshold"] == 0.8
    assert {"rater_id", "r", "r1", "r2", "status", "reason"} <= set(p913["per_rater"][0])
    assert p913["passes"] == len(p913["rejected_per_pass"]) + 1
    model = study_doc["subject_model"]
    assert model["status"] == "ok" and model["convergence"]["converged"]
    assert len(model["conditions"]) == 30 and len(model["raters"]) == 58
    for c in model["conditions"]:
        assert c["ci95_low"] < c["quality"] < c["ci95_high"] and abs(c["quality"] - c["mos"]) < 1
    assert abs(sum(r["bias"] for r in model["raters"])) < 1e-9  # mean-zero bias


def test_thresholds_shape(study_doc: dict[str, Any]) -> None:
    by_pace = study_doc["thresholds"]["by_pace"]
    assert set(by_pace) == {"fast", "medium", "slow", "all"}
    for per_direction in by_pace.values():
        for direction in ("downstream", "upstream", "both"):
            for key in ("max_delay_ms", "max_loss_pct"):
                entry = per_direction[direction][key]
                assert {"tree", "logistic", "ci95_low", "ci95_high", "resolution_note"} <= set(
                    entry
                )
    fast_loss = by_pace["fast"]["both"]["max_loss_pct"]
    assert fast_loss["tree"] == pytest.approx(0.65)
    assert fast_loss["tree_tested_bracket"] == [0.3, 1.0]
    assert "between the tested levels 0.3 and 1 %" in fast_loss["resolution_note"]


def test_progress_is_reported_and_monotone(study: pd.DataFrame) -> None:
    seen: list[tuple[float, str]] = []
    analyze(study, progress=lambda f, s: seen.append((f, s)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0


def test_reliable_only_and_acceptable_from(study: pd.DataFrame, study_doc: dict[str, Any]) -> None:
    # 4 ratings per counted scenario group: a rater rating at random passes rho < -0.6 with
    # p = 0.23, so nobody is reliable at the default cutoff and reliable_only refuses
    with pytest.raises(NoReliableRatersError, match="min_reliable_raters = 3"):
        analyze(study, reliable_only=True)
    rel = analyze(study, reliable_only=True, reliability_cutoff=0.9)
    reliable = set(rel["reliability"]["reliable_raters"])
    expected = int(study["rater_id"].astype(str).isin(reliable).sum())
    assert rel["meta"]["n_ratings_analysed"] == expected < len(study)
    assert rel["meta"]["n_reliable_raters"] == len(reliable) >= 3
    assert rel["sos_hypothesis"]["a"] == rel["sos_hypothesis"]["reliable_raters"]["a"]
    # kept raters below min_reliable_share (0.5): the analysis runs, and says so
    (few,) = [w for w in rel["warnings"] if w["code"] == "few_reliable_raters"]
    assert few["message"].startswith(f"reliable_only analyses {len(reliable)} of 58 raters")
    strict = analyze(study, acceptable_from=4)
    assert strict["weights"]["target"] == "acceptable = rating >= 4"
    assert strict["weights"]["weka"] != study_doc["weights"]["weka"]


def test_cli_prints_the_same_document_then_its_warnings(
    study_dir: Path, study_doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # one stream for stdout and stderr: what comes first is the order of the writes
    both = io.StringIO()
    monkeypatch.setattr(sys, "stdout", both)
    monkeypatch.setattr(sys, "stderr", both)
    assert main(["analyze", str(study_dir / "ratings.csv")]) == 0
    document, *warnings = both.getvalue().splitlines()
    printed = json.loads(document)
    assert printed == json.loads(json.dumps(study_doc))
    assert study_doc["warnings"]  # the example study has some (tests/test_warnings_study.py)
    assert warnings == [
        f"warning: [{w['code']}] {w['where']}: {w['message']}" for w in study_doc["warnings"]
    ]


def test_cli_strict_evidence_and_the_reliable_only_limits(
    study_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ratings = str(study_dir / "ratings.csv")
    assert main(["analyze", ratings, "--strict-evidence", "--min-reliable-share", "0.2"]) == 3
    out = capsys.readouterr()
    doc = json.loads(out.out)  # the whole document, then the exit code says "warnings"
    assert doc["meta"]["min_reliable_share"] == 0.2 and doc["meta"]["min_reliable_raters"] == 3
    assert out.err.count("warning: [") == len(doc["warnings"]) > 0
    # --reliable-only keeping fewer raters than --min-reliable-raters: refused, exit 2
    assert main(["analyze", ratings, "--reliable-only", "--min-reliable-raters", "59"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.startswith("qoe-analysis: --reliable-only: ")
    assert "fewer than min_reliable_raters = 59" in out.err and out.err.count("\n") == 1


def test_cli_out_writes_tables_and_plots(study_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    rc = main(["analyze", str(study_dir / "ratings.csv"), "--out", str(out), "--seed", "3"])
    assert rc == 0
    names = {p.name for p in out.iterdir()}
    assert {
        "analysis.json",
        "conditions.csv",
        "weights.csv",
        "thresholds.csv",
        "tree_rules.txt",
        "subject_model_conditions.csv",
        "subject_model_raters.csv",
        "rater_status.csv",
    } <= names
    assert {"mos_per_scenario.png", "sos_vs_mos.png", "intra_rater_cdf.png"} <= names
    conditions = pd.read_csv(out / "conditions.csv")
    assert set(conditions.columns) >= CONDITION_KEYS
    status = pd.read_csv(out / "rater_status.csv")
    assert (
        len(status) == 58 and status[["p913_reason", "straight_lining_reason"]].notna().all().all()
    )


def test_cli_synth(tmp_path: Path) -> None:
    assert main(["synth", "--out", str(tmp_path), "--seed", "4", "--participants", "10"]) == 0
    df = pd.read_csv(tmp_path / "ratings.csv")
    truth = json.loads((tmp_path / "truth.json").read_text())
    assert df["rater_id"].nunique() == 10 and truth["seed"] == 4


def test_console_script_version() -> None:
    exe = Path(sys.executable).with_name("qoe-analysis")
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"qoe-analysis {__version__}"


def test_import_has_no_heavy_side_effects() -> None:
    code = (
        "import sys, qoe_analysis; print('sklearn' in sys.modules, callable(qoe_analysis.analyze))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def _rater_status_merged(statuses: dict[str, pd.DataFrame]) -> list[dict[str, Any]]:
    """The rater-by-rater merge _rater_status did for every table (the reference)."""
    merged: dict[str, dict[str, Any]] = {}
    for rule, frame in statuses.items():
        for rater, status in zip(
            frame["rater_id"].astype(str), frame["status"].astype(str), strict=True
        ):
            merged.setdefault(rater, {"rater_id": rater})[rule] = status
    return [merged[k] for k in sorted(merged)]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("order", ["sorted", "shuffled", "repeated"])
def test_rater_status_equals_the_rater_by_rater_merge(seed: int, order: str) -> None:
    """The column-wise path (every rule's raters the same, sorted and distinct) and the
    merge (any other case: raters missing from a rule, out of order, or repeated)."""
    rng = np.random.default_rng(seed)
    raters = sorted({f"P{k:03d}" for k in rng.integers(0, 60, 40)})
    if order == "shuffled":
        raters = list(rng.permutation(raters))
    elif order == "repeated":
        raters.insert(len(raters) // 2, raters[len(raters) // 2])
    statuses = {}
    for rule in ("intra_rater", "p913", "straight_lining"):
        kept = raters if seed % 2 else [r for r in raters if rng.random() < 0.8]
        statuses[rule] = pd.DataFrame(
            {"rater_id": kept, "status": rng.choice(["reliable", "unreliable"], len(kept))}
        )
    assert _rater_status(statuses) == _rater_status_merged(statuses)
    if seed % 2:  # same raters everywhere: the column-wise path, same key order
        assert [list(e) for e in _rater_status(statuses)] == [
            ["rater_id", "intra_rater", "p913", "straight_lining"]
        ] * len(set(raters))


@pytest.mark.parametrize("seed", range(10))
def test_rows_of_is_isin(seed: int) -> None:
    rng = np.random.default_rng(seed)
    names = [f"P{k:03d}" for k in range(30)]
    cells = list(rng.choice(names[:25], 200))
    cells[::17] = [None] * len(cells[::17])  # missing cells are never wanted
    wanted = [*rng.choice(names, 12).tolist(), "not a rater"]
    plain = pd.Series(cells, dtype=object)
    # categories in any order, some unused
    categorical = plain.astype(pd.CategoricalDtype(list(rng.permutation(names))))
    for column in (plain, categorical):
        expected = column.isin(set(wanted)).to_numpy()
        got = rows_of(column, wanted)
        assert got.dtype == bool and np.array_equal(got, expected)
