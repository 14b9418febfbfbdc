"""The document's warnings about the evidence (evidence/warning_evidence.py): hand-made
documents for each rule, one where it fires and one where it does not."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from qoe_analysis.evidence.warning_evidence import (
    dominant_raters,
    dry_run,
    few_reliable_raters,
    not_assessable,
    thin_evidence,
)
from qoe_analysis.evidence.warnings import document_warnings, raters_per_game, ratings_per_rater


def _codes(warnings: list[Any]) -> list[tuple[str, str]]:
    return [(w["code"], w["where"]) for w in warnings]


def _condition(scenario: str, game: str, n: int) -> dict[str, Any]:
    return {"scenario": scenario, "game": game, "n": n}


def test_a_game_with_one_rater_is_thin_evidence_for_inter_rater_agreement() -> None:
    fired = thin_evidence({}, {"racing": 1, "soccer": 3, "rpg": 0})
    assert _codes(fired) == [("thin_evidence", "reliability.inter")]
    assert "2 of 3 games" in fired[0]["message"]
    assert "racing (1)" in fired[0]["message"] and "rpg (0)" in fired[0]["message"]
    assert "need >= 2" in fired[0]["message"]
    assert thin_evidence({}, {"racing": 2, "soccer": 3}) == []


def test_conditions_below_the_planned_raters_are_counted_and_listed() -> None:
    doc = {
        "planning": {"raters_per_condition_for_interval": 18, "half_width": 0.5},
        "conditions": [
            _condition("B", "racing", 3),
            _condition("D1", "racing", 2),
            _condition("D2", "racing", 20),
            _condition("D3", "racing", 0),  # not rated: no condition of the study
            _condition("B", "all", 3),  # pooled rows are not counted beside per-game ones
        ],
    }
    fired = thin_evidence(doc)
    assert _codes(fired) == [("thin_evidence", "conditions")]
    message = fired[0]["message"]
    assert message.startswith("2 of 3 conditions")
    assert "need >= 18 per condition, have n = 2–3" in message
    assert "D1/racing (2), B/racing (3)" in message  # fewest ratings first
    doc["planning"] = {"raters_per_condition_for_interval": 2}
    assert thin_evidence(doc) == []
    assert thin_evidence({"conditions": doc["conditions"]}) == []  # no planning: no need known


def test_at_most_four_conditions_are_named() -> None:
    doc = {
        "planning": {"raters_per_condition_for_interval": 10},
        "conditions": [_condition(f"S{i}", "g", 1) for i in range(7)],
    }
    (fired,) = thin_evidence(doc)
    assert "S0/g (1), S1/g (1), S2/g (1), S3/g (1) and 3 more" in fired["message"]


def test_an_sos_fit_on_fewer_than_three_conditions() -> None:
    (fired,) = thin_evidence({"sos_hypothesis": {"n_conditions": 2, "by_game": {}}})
    assert fired["where"] == "sos_hypothesis"
    assert "fitted on 2 conditions (need >= 3)" in fired["message"]
    per_game = {"a": {"n_conditions": 2}, "b": {"n_conditions": 8}}
    (fired,) = thin_evidence({"sos_hypothesis": {"n_conditions": 10, "by_game": per_game}})
    assert "of 1 game is" in fired["message"] and "a (2)" in fired["message"]
    fine = {"n_conditions": 10, "by_game": {"a": {"n_conditions": 5}}}
    assert thin_evidence({"sos_hypothesis": fine}) == []


def _screened(**parts: Any) -> dict[str, Any]:
    intra = parts.get("intra", [])
    return {
        "meta": {"n_raters": parts.get("n_raters", len(intra))},
        "reliability": {
            "intra": intra,
            "screening": {
                "p913": parts.get("p913", {"per_rater": []}),
                "straight_lining": parts.get("flat", {"per_rater": []}),
            },
        },
    }


def test_not_assessable_counts_per_rule_with_the_reasons() -> None:
    why = "but a rater rating at random would pass on this design with p = 0.2302 > 0.01"
    intra = [
        {"rater_id": "P1", "status": "not_assessable", "reason": f"rho = -0.949 < -0.6, {why}"},
        {"rater_id": "P2", "status": "not_assessable", "reason": f"rho = -1.000 < -0.6, {why}"},
        {"rater_id": "P3", "status": "reliable", "reason": "rho = -0.9 < -0.6"},
        {"rater_id": "P4", "status": "not_assessable", "reason": "no counted group"},
    ]
    p913 = {
        "status": "not_assessable",
        "reason": "0 of 24 conditions are rated by >= 4 distinct raters",
        "min_raters_per_condition": 4,
        "n_conditions_used": 0,
        "n_conditions_total": 24,
        "per_rater": [{"rater_id": r, "status": "not_assessable", "reason": "x"} for r in "ab"],
    }
    flat = {
        "min_ratings_per_session": 5,
        "per_rater": [{"rater_id": "P1", "status": "not_assessable", "reason": "short"}],
    }
    fired = not_assessable(_screened(intra=intra, p913=p913, flat=flat, n_raters=6))
    assert _codes(fired) == [
        ("not_assessable", "reliability.intra"),
        ("not_assessable", "reliability.screening.p913"),
        ("not_assessable", "reliability.screening.straight_lining"),
    ]
    intra_text, p913_text, flat_text = (w["message"] for w in fired)
    # the raters' own rho values are left out, so one reason on one design counts once
    assert intra_text.startswith("3 of 6 raters")
    assert f"rho = … < -0.6, {why} (2); no counted group (1)" in intra_text
    assert "not assessable: 0 of 24 conditions" in p913_text and "2 of 6 raters" in p913_text
    assert "1 of 6 raters" in flat_text and "needs >= 5 ratings" in flat_text


def test_assessable_raters_and_an_ok_screening_give_no_warning() -> None:
    intra = [{"rater_id": "P1", "status": "unreliable", "reason": "rho = 0.5"}]
    p913 = {"status": "ok", "per_rater": [{"rater_id": "P1", "status": "reliable"}]}
    assert not_assessable(_screened(intra=intra, p913=p913)) == []
    # a P.913 rater not assessable on an assessable screening: the rule's basis is stated
    p913["per_rater"] = [{"rater_id": "P1", "status": "not_assessable", "reason": "few"}]
    p913 |= {"min_raters_per_condition": 4, "n_conditions_used": 7, "n_conditions_total": 9}
    (fired,) = not_assessable(_screened(intra=intra, p913=p913))
    assert "(conditions with >= 4 raters: 7 of 9): few (1)" in fired["message"]


@pytest.mark.parametrize(
    ("reliable_only", "kept", "fires"), [(True, 2, True), (True, 5, False), (False, 2, False)]
)
def test_few_reliable_raters(reliable_only: bool, kept: int, fires: bool) -> None:
    meta = {
        "reliable_only": reliable_only,
        "n_raters": 10,
        "n_reliable_raters": kept,
        "min_reliable_share": 0.5,
    }
    fired = few_reliable_raters({"meta": meta})
    assert bool(fired) is fires
    if fires:
        assert "2 of 10 raters (20 %)" in fired[0]["message"]
        assert "minimum share 50 %" in fired[0]["message"]


@pytest.mark.parametrize(
    ("counts", "k", "fires"),
    [
        # 2,483 ratings: the first rater's 1,500 are >= half (1,241.5)
        ([1500, 375, *([8] * 76)], 1, True),
        ([50, 20, 10, 10, 10], 1, True),  # exactly half counts as "at least half"
        ([50, 30, 20], 1, False),  # one rater, but a third of all three
        # 180 ratings: 10 raters give 90 = half; 10 of 100 raters is 10 %
        ([9] * 10 + [1] * 90, 10, True),
        # 188 ratings: 10 raters give 90 < 94, 11 give 99; 11 of 100 is over 10 %
        ([9] * 11 + [1] * 89, 11, False),
        ([5, 5, 5, 5], 2, False),  # 2 raters, but half of all four
        ([34, 33, 33], 2, False),
        ([12] * 58, 29, False),
    ],
)
def test_the_fewest_raters_giving_half_the_ratings(counts: list[int], k: int, fires: bool) -> None:
    fired = dominant_raters(counts)
    assert bool(fired) is fires
    if fires:
        assert fired[0]["message"].startswith(f"{k} of {len(counts)} raters give")


def test_dominance_needs_few_raters_relative_to_all() -> None:
    (fired,) = dominant_raters([1875, 100] + [7] * 76)
    assert fired["message"].startswith("1 of 78 raters give 1875 of 2507 ratings (74.8 %)")
    assert fired["where"] == "meta"
    assert dominant_raters([7]) == []  # one rater: nothing to dominate
    assert dominant_raters([]) == []


def test_dry_run_share() -> None:
    (fired,) = dry_run({"meta": {"n_ratings": 790, "n_ratings_dry_run": 120}})
    assert fired["code"] == "dry_run" and "120 of 790 ratings (15.2 %)" in fired["message"]
    assert dry_run({"meta": {"n_ratings": 790, "n_ratings_dry_run": 0}}) == []
    assert dry_run({"meta": {"n_ratings": 790, "n_ratings_dry_run": None}}) == []


def test_rater_counts_from_the_table() -> None:
    table = pd.DataFrame(
        {"rater_id": ["a", "a", "b", "c", "c", "c"], "game": ["x", "x", "x", "y", "y", "y"]}
    )
    assert sorted(ratings_per_rater(table)) == [1, 2, 3]
    assert raters_per_game(table) == {"x": 2, "y": 1}


def test_a_document_without_sections_has_no_warnings() -> None:
    assert document_warnings({}) == []
    assert document_warnings({"meta": {}, "conditions": [], "thresholds": {}}) == []
