"""One validation pass: ``analyze`` trusts the very frame ``load_ratings`` returned, and
validates anything else (a copy, a filter, a raw frame, another sidecar)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from qoe_analysis import analyze, load_ratings, report_study
from qoe_analysis.scales import default_sidecar, parse_sidecar
from qoe_analysis.tidy.validation import is_validated, validate_ratings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "data"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the validations ``analyze`` runs."""
    calls: list[int] = []

    def counting(df: pd.DataFrame, **kwargs: object) -> pd.DataFrame:
        calls.append(len(df))
        return validate_ratings(df, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(report_study, "validate_ratings", counting)
    return calls


def test_the_validated_frame_is_recognised(study: pd.DataFrame) -> None:
    assert is_validated(study)
    assert not is_validated(study.copy())
    assert not is_validated(study[study["rating"] >= 2])
    assert not is_validated(study.assign(extra=1))


def test_another_sidecar_is_not_the_validated_one(study: pd.DataFrame) -> None:
    other = parse_sidecar(json.loads((FIXTURES / "scale_0_6.items.json").read_text()))
    assert is_validated(study, None)
    assert is_validated(study, default_sidecar())
    assert not is_validated(study, other)


def test_analyze_does_not_validate_a_loaded_table_again(
    study_dir: Path, counted: list[int]
) -> None:
    table = load_ratings(study_dir / "ratings.csv")
    doc = analyze(table)
    assert counted == []
    assert doc["meta"]["n_ratings"] == len(table)


def test_analyze_validates_a_changed_copy(study: pd.DataFrame, counted: list[int]) -> None:
    broken = study.copy()
    broken.loc[3, "rating"] = 9
    with pytest.raises(ValueError, match="rating"):
        analyze(broken)
    assert counted == [len(study)]


def test_analyze_of_a_raw_frame_equals_analyze_of_the_loaded_one(study_dir: Path) -> None:
    text = (study_dir / "ratings.csv").read_text(encoding="utf-8")
    raw = pd.read_csv(io.StringIO(text))
    assert analyze(raw) == analyze(load_ratings(io.StringIO(text)))


def test_escaped_text_cells_that_meet_are_merged(tmp_path: Path, study_dir: Path) -> None:
    """``'=x`` (an escaped ``=x``) and ``=x`` name the same game after un-escaping."""
    frame = pd.read_csv(study_dir / "ratings.csv")
    game = frame["game"].iloc[0]
    rows = frame["game"] == game
    first_sessions = frame.loc[rows, "session_id"].unique()[:2]
    frame.loc[rows, "game"] = "=g"
    frame.loc[frame["session_id"] == first_sessions[0], "game"] = "'=g"
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    table = load_ratings(path)
    assert "=g" in set(table["game"].astype(str))
    assert "'=g" not in set(table["game"].astype(str))
    assert table["game"].astype(str).tolist() == [
        "=g" if g in ("=g", "'=g") else g for g in frame["game"].tolist()
    ]
