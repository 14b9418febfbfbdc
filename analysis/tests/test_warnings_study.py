"""The warnings of whole analyses: the example study gets only those its evidence deserves,
the pilot with a random rater those naming what cannot be judged."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from qoe_analysis import analyze
from qoe_analysis.evidence.warnings import document_warnings
from qoe_analysis.synthetic_pilot import pilot_dataset

#: what the example study (58 raters, 26-27 ratings per condition, no dry run, no merged
#: or collinear factors, a tree well above the majority class) must not be warned about
UNDESERVED = {
    "thin_evidence",
    "few_reliable_raters",
    "interval_clipped",
    "no_interval",
    "dominant_raters",
    "dry_run",
    "collinear_factors",
    "merged_factors",
    "model_weak",
}


def _where(doc: dict[str, Any]) -> set[tuple[str, str]]:
    return {(w["code"], w["where"]) for w in doc["warnings"]}


def test_the_example_study_gets_only_the_warnings_its_evidence_deserves(
    study: pd.DataFrame, study_doc: dict[str, Any]
) -> None:
    warnings = study_doc["warnings"]
    assert not {w["code"] for w in warnings} & UNDESERVED
    found = _where(study_doc)
    # four KPI factors vary: the thresholds are marginal; one logistic estimate (slow, both
    # directions, delay 301.7 ms) lies just beyond the largest tested delay (300 ms)
    assert ("marginal_thresholds", "thresholds") in found
    (beyond,) = [w for w in warnings if w["code"] == "extrapolated" and w["where"] == "thresholds"]
    assert "slow both max_delay_ms = 301.7" in beyond["message"]
    for w in warnings:
        assert w["where"].split(".")[0] in study_doc  # a path into the document
        assert w["message"] and "nan" not in w["message"]
    # the same rules on the same document and table give the same list
    assert document_warnings(study_doc, study) == warnings


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_pilot_with_a_random_rater_is_warned_about_what_cannot_be_judged(seed: int) -> None:
    table, _ = pilot_dataset(seed)
    doc = analyze(table)
    found = _where(doc)
    # 3 raters per condition: no ±0.5 interval, no P.913 screening (needs 4 per condition)
    assert ("thin_evidence", "conditions") in found
    assert ("not_assessable", "reliability.screening.p913") in found
    assert ("interval_clipped", "conditions") in found
    # "both directions" delay and loss are one factor each, named as merged
    assert ("merged_factors", "meta") in found
    assert ("collinear_factors", "meta") not in found
    (p913,) = [w for w in doc["warnings"] if w["where"] == "reliability.screening.p913"]
    assert "6 of 6 raters not assessable" in p913["message"]
