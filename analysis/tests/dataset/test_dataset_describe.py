"""``qoe-analysis describe`` (qoe_analysis.dataset.describe, guess): a draft descriptor by
the columns' names and content, and the implied descriptor of a tidy CSV, which reads to the
same analysis as the tidy loader."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from qoe_analysis.cli import main
from qoe_analysis.dataset.describe import describe_files
from qoe_analysis.dataset.guess import words
from qoe_analysis.dataset.loader import load_dataset
from qoe_analysis.dataset.reading import csv_reader, load_dataset_file

from .conftest import DATASET, REPO

TIDY = REPO / "fixtures" / "synthetic" / "dissertation_shape" / "ratings.csv"


def roles(draft: dict[str, Any]) -> dict[str, str]:
    return {f["name"]: f["role"] for f in draft["schema"]["fields"]}


def test_column_names_split_into_words() -> None:
    assert words("DL delay [ms]") == ["dl", "delay", "ms"]
    assert words("playerId") == ["player", "id"] and words("QoE") == ["qoe"]
    assert words("CPU [%]") == ["cpu", "%"] and words("ul_loss_pct") == ["ul", "loss", "pct"]


def test_the_draft_of_the_p809_files_needs_only_the_analysts_rules(tmp_path: Path) -> None:
    for csv in DATASET.glob("*.csv"):
        shutil.copy(csv, tmp_path / csv.name)
    files = [tmp_path / n for n in ("wired_a.csv", "wired_b.csv", "mobile.csv")]
    draft, notes = describe_files(files, tmp_path / "descriptor.json")
    assert roles(draft) == {
        "Player": "rater", "Round": "ignore", "Game": "game", "QoE": "rating",
        "DL delay [ms]": "factor", "UL delay [ms]": "factor", "DL jitter [ms]": "factor",
        "UL jitter [ms]": "factor", "DL loss": "factor", "UL loss": "factor",
        "Play again": "ignore", "CPU [%]": "covariate", "Play time [s]": "covariate",
        "Age": "questionnaire", "Gaming hours": "questionnaire", "Comment": "ignore",
    }  # fmt: skip
    fields = {f["name"]: f for f in draft["schema"]["fields"]}
    assert fields["QoE"]["scale"] == {"kind": "discrete", "min": 0, "max": 6}
    assert fields["QoE"]["observed"]["missing"] == 26
    assert (fields["UL loss"]["direction"], fields["UL loss"]["unit"]) == ("upstream", "fraction")
    assert "post-play" in fields["Play again"]["why"] and "not recognised" in fields["Round"]["why"]
    assert draft["schema"]["missingValues"] == ["", "NA"]
    assert [r["path"] for r in draft["resources"]] == ["wired_a.csv", "wired_b.csv", "mobile.csv"]
    assert draft["resources"][2]["missing_fields"] == ["CPU [%]"]
    assert notes == ["mobile.csv has no column 'CPU [%]'"]
    # the draft reads as it is (the analyst then sets the acceptance rule and the paces)
    dataset = load_dataset(draft, csv_reader(tmp_path))
    assert dataset.summary["n_raters"] == 42 and dataset.summary["undeclared_columns"] == []


def test_a_tidy_csv_drafts_its_implied_descriptor(
    tmp_path: Path, study_doc: dict[str, Any]
) -> None:
    shutil.copy(TIDY, tmp_path / "ratings.csv")
    draft, notes = describe_files([tmp_path / "ratings.csv"], tmp_path / "descriptor.json")
    assert notes == []
    assert roles(draft) == {
        "rater_id": "rater", "session_id": "session", "game": "game", "game_pace": "pace",
        "scenario": "scenario", "ds_delay_ms": "factor", "us_delay_ms": "factor",
        "ds_loss_pct": "factor", "us_loss_pct": "factor", "rating": "rating",
        "age": "questionnaire", "skill": "questionnaire", "attitude": "questionnaire",
    }  # fmt: skip
    rating = next(f for f in draft["schema"]["fields"] if f["role"] == "rating")
    assert (rating["item"], rating["scale"]["kind"], rating["acceptable_from"]) == (
        "overall",
        "acr5",
        3,
    )
    (tmp_path / "descriptor.json").write_text(json.dumps(draft))
    from qoe_analysis.report import analyze

    dataset = load_dataset_file(tmp_path / "descriptor.json")
    doc = analyze(dataset.ratings, dataset=dataset)
    # what the tidy loader means: the same conditions, weights, tree and thresholds
    for section in ("conditions", "weights", "tree", "thresholds", "mos_by_factor"):
        assert doc[section] == study_doc[section], section  # type: ignore[literal-required]
    assert doc["meta"]["factors"] == study_doc["meta"]["factors"]
    assert [w["code"] for w in doc["warnings"][:1]] != ["undeclared_columns"]


def test_describe_cli_writes_the_draft_and_its_notes(tmp_path: Path) -> None:
    shutil.copy(DATASET / "mobile.csv", tmp_path / "mobile.csv")
    shutil.copy(DATASET / "wired_a.csv", tmp_path / "wired_a.csv")
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "new" / "descriptor.json"
    args = [
        "describe",
        str(tmp_path / "wired_a.csv"),
        str(tmp_path / "mobile.csv"),
        "--out",
        str(target),
    ]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(args) == 0
    draft = json.loads(target.read_text())
    assert [r["path"] for r in draft["resources"]] == ["../wired_a.csv", "../mobile.csv"]
    assert out.getvalue() == ""
    assert err.getvalue() == "describe: ../mobile.csv has no column 'CPU [%]'\n"


def test_describe_lists_unreadable_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty.csv").write_text("")
    assert main(["describe", str(tmp_path / "empty.csv"), str(tmp_path / "none.csv")]) == 2
    err = capsys.readouterr().err
    assert (
        "qoe-analysis: invalid dataset: 2 problems:" in err
        and "empty.csv: the file cannot be read: the file is empty" in err
    )
