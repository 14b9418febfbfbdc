"""Quality control (ITU-T P.808 traps and hidden references): the rule on hand-computed
cases, the split of the QC rows from the analysed ratings, and the document's section."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from qoe_analysis import load_ratings
from qoe_analysis.evidence.quality_control import QcRow, judge, tolerance
from qoe_analysis.report import analyze
from qoe_analysis.scales import default_scale
from qoe_analysis.tidy.errors import RatingsValidationError
from qoe_analysis.tidy.quality_control_rows import QC_ATTR, judge_table

STUDY_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "synthetic" / "dissertation_shape"
ACR = default_scale("acr5")
SCALES = {"overall": ACR}


def trap(rater: str, answered: float, asked: float = 2) -> QcRow:
    return QcRow(rater, "S1", "D1", "overall", "trap", answered, asked)


def repeat(rater: str, rating: float, scenario: str = "B") -> QcRow:
    return QcRow(rater, "S1", scenario, "overall", "hidden_reference", rating)


def test_tolerance_is_a_quarter_of_the_range() -> None:
    # 1 point on ACR-5 (P.808 toolkit), 1.5 on the P.809 1..7 slider, 25 on 0..100
    assert tolerance(ACR) == 1
    assert tolerance({"min": 1, "max": 7}) == 1.5
    assert tolerance({"min": 0, "max": 100}) == 25


def test_a_wrong_trap_answer_fails_with_its_reason() -> None:
    verdicts = {v.rater_id: v for v in judge([trap("A", 2), trap("B", 5)], {}, SCALES)}
    assert verdicts["A"].status == "reliable" and not verdicts["A"].failed
    assert verdicts["B"].failed
    assert verdicts["B"].reasons == ("trap 1: asked for 2 (Poor), answered 5",)


def test_traps_are_numbered_per_rater() -> None:
    (verdict,) = judge([trap("A", 2), trap("A", 1, asked=4)], {}, SCALES)
    assert verdict.reasons == ("trap 2: asked for 4 (Good), answered 1",)
    assert verdict.n_traps == 2


def test_hidden_reference_within_and_beyond_tolerance() -> None:
    first = {("A", "S1", "B", "overall"): 5.0, ("C", "S1", "B", "overall"): 5.0}
    verdicts = {v.rater_id: v for v in judge([repeat("A", 4), repeat("C", 3)], first, SCALES)}
    assert verdicts["A"].status == "reliable"  # |4 - 5| = 1 <= 1
    assert verdicts["C"].reasons == (
        "hidden reference B (overall): rated 5 then 3, differs by 2 > 1",
    )


def test_without_answers_or_first_showing_not_assessable() -> None:
    verdicts = {v.rater_id: v for v in judge([repeat("A", 1)], {}, SCALES, raters=["A", "Z"])}
    assert verdicts["A"].status == "not_assessable"  # the first showing is missing
    assert verdicts["Z"].status == "not_assessable"
    assert verdicts["Z"].reason == "no quality-control answers"


def _with_qc(extra: str) -> str:
    text = (STUDY_DIR / "ratings.csv").read_text()
    header, *rows = text.splitlines()
    n = header.count(",")
    lines = [header + ",kind,qc_expected", *(row + ",," for row in rows)]
    # P01 answers its trap as instructed (2), P02 answers 5; P03's repeat of B is off by 3
    base: dict[str, str] = {}
    for row in rows:
        base.setdefault(row.split(",")[0], row)  # each rater's first rating: the baseline B
    for rater, kind, rating, expected in (
        ("P01", "trap", "2", "2"),
        ("P02", "trap", "5", "2"),
        ("P03", "hidden_reference", None, ""),
    ):
        cells = base[rater].split(",")
        if rating is None:  # a repeat of the baseline, 3 points off
            rating = str(int(cells[9]) - 3)
        cells[9] = rating
        lines.append(",".join(cells[: n + 1]) + f",{kind},{expected}")
    return "\n".join(lines) + extra


def test_qc_rows_never_enter_the_analysed_table() -> None:
    plain = load_ratings(STUDY_DIR / "ratings.csv")
    table = load_ratings(io.StringIO(_with_qc("\n")))
    assert len(table) == len(plain)  # the three QC rows are split off
    assert "kind" not in table.columns and "qc_expected" not in table.columns
    qc = judge_table(table)
    assert qc is not None and qc is table.attrs[QC_ATTR]
    assert len(qc.rows) == 3


def test_unknown_kind_is_refused_with_its_line() -> None:
    text = _with_qc("\n").replace(",trap,2\n", ",trapp,2\n", 1)
    with pytest.raises(RatingsValidationError) as caught:
        load_ratings(io.StringIO(text))
    assert caught.value.column == "kind"
    assert caught.value.line == 792  # header, 790 ratings, then the first QC row


def test_document_lists_failed_raters_flagged_by_default() -> None:
    plain = analyze(load_ratings(STUDY_DIR / "ratings.csv"))
    doc = analyze(load_ratings(io.StringIO(_with_qc("\n"))))
    section = doc["reliability"]["screening"]["quality_control"]
    assert section["applied"] and not section["excluded"]
    assert section["failed"] == ["P02", "P03"]
    per_rater = {r["rater_id"]: r for r in section["per_rater"]}
    assert per_rater["P01"]["status"] == "reliable"
    assert per_rater["P02"]["reason"] == "trap 1: asked for 2 (Poor), answered 5"
    assert per_rater["P03"]["reason"].startswith("hidden reference B (overall): rated ")
    assert per_rater["P04"]["status"] == "not_assessable"
    # flagged, not excluded: every MOS is the one without QC rows
    assert doc["conditions"] == plain["conditions"]
    assert plain["reliability"]["screening"]["quality_control"]["applied"] is False


def test_exclude_qc_failed_leaves_the_failed_raters_out() -> None:
    doc = analyze(load_ratings(io.StringIO(_with_qc("\n"))), exclude_qc_failed=True)
    assert doc["reliability"]["screening"]["quality_control"]["excluded"] is True
    raters = {r["rater_id"] for r in doc["reliability"]["intra"]}
    assert "P02" not in raters and "P03" not in raters and "P01" in raters


def test_a_raw_table_is_split_by_analyze_too() -> None:
    raw = pd.read_csv(io.StringIO(_with_qc("\n")), dtype={"rater_id": str, "session_id": str})
    doc = analyze(raw)
    assert doc["reliability"]["screening"]["quality_control"]["failed"] == ["P02", "P03"]
