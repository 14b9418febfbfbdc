"""Fixtures of the policy tests: a hand-made analysis document, the Faucet tool venv."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from qoelab_testkit.faucet import faucet_venv as build_faucet_venv

REPO = Path(__file__).resolve().parents[3]
GENERATED_AT = "2026-01-02T03:04:05Z"


def _entry(
    tree: float | None,
    status: str,
    *,
    bracket: list[float] | None = None,
    logistic: float | None = None,
    ci: tuple[float, float] | None = None,
    logistic_status: str = "not_identifiable",
    alone: bool = False,
    tested: list[float],
) -> dict[str, Any]:
    return {
        "tree": tree,
        "tree_tested_bracket": bracket,
        "tree_status": status,
        "logistic": logistic,
        "ci95_low": ci[0] if ci else None,
        "ci95_high": ci[1] if ci else None,
        "logistic_status": logistic_status,
        "tested_levels": tested,
        "varied_alone_in_design": alone,
        "resolution_note": None,
    }


DELAYS = [0.0, 50.0, 100.0, 150.0]
LOSSES = [0.0, 0.5, 1.0]


def _corner(corner: dict[str, float], scale: float, predicted: float) -> dict[str, Any]:
    return {
        "status": "ok",
        "reason": f"tested maxima scaled by {scale:g}",
        "target": 0.5,
        "corner": corner,
        "tested_max": {k: v / scale for k, v in corner.items()},
        "scale": scale,
        "predicted": predicted,
        "predicted_ci95": [0.5, predicted + 0.1],
        "observed_share": 0.7,
        "observed_n": 20,
        "extrapolated": False,
    }


def hand_joint_model() -> dict[str, Any]:
    """The joint corners of the hand-made document: fast and all with the bounds the
    marginal rules of policy 1.0 gave (so that the evaluator's cases keep their numbers),
    slow without a bound (not acceptable even unimpaired)."""
    fast = {"ds_delay_ms": 100.0, "us_delay_ms": 140.0, "ds_loss_pct": 0.75, "us_loss_pct": 0.9}
    every = {"ds_delay_ms": 100.0, "us_delay_ms": 150.0, "ds_loss_pct": 0.75, "us_loss_pct": 0.75}
    slow = _corner(fast, 0.5, 0.6) | {
        "status": "no_bound",
        "reason": "even unimpaired (t -> 0) the lower 95 % bound of P(acceptable) is 0.310 "
        "< target 0.5",
        "corner": None,
        "scale": None,
        "predicted": None,
        "predicted_ci95": None,
        "observed_share": None,
        "observed_n": 0,
        "extrapolated": None,
    }
    return {
        "method": "hand-made",
        "formula": "acceptable ~ 1 + ds_delay_ms + us_delay_ms + ds_loss_pct + us_loss_pct",
        "status": "ok",
        "reason": "",
        "by_pace": {
            "fast": _corner(fast, 0.5, 0.62),
            "slow": slow,
            "all": _corner(every, 0.5, 0.6),
        },
    }


def hand_analysis() -> dict[str, Any]:
    """A small analysis document whose bounds are known by construction.

    fast: downstream from tree splits (100 ms, 0.75 %), upstream not estimable → the
    symmetric logistic estimates (140 ms [120, 170], 0.9 % [0.7, 1.2]).
    slow: not acceptable even at zero impairment (tree and logistic).
    all: upstream delay varied alone and acceptable at every level → 150 ms (tested max);
    upstream loss falls back to the symmetric tree split 0.75 % (logistic CI unbounded).
    """
    both_fast = {
        "max_delay_ms": _entry(
            100.0, "split", bracket=[50.0, 150.0], logistic=140.0, ci=(120.0, 170.0),
            logistic_status="ok", alone=True, tested=DELAYS,
        ),
        "max_loss_pct": _entry(
            0.75, "split", bracket=[0.5, 1.0], logistic=0.9, ci=(0.7, 1.2),
            logistic_status="ok", alone=True, tested=LOSSES,
        ),
    }  # fmt: skip
    fast = {
        "downstream": {
            "max_delay_ms": _entry(100.0, "split", bracket=[50.0, 150.0], tested=DELAYS),
            "max_loss_pct": _entry(0.75, "split", bracket=[0.5, 1.0], tested=LOSSES),
        },
        "upstream": {
            "max_delay_ms": _entry(None, "acceptable_at_all_tested_levels", tested=DELAYS),
            "max_loss_pct": _entry(None, "acceptable_at_all_tested_levels", tested=LOSSES),
        },
        "both": both_fast,
    }
    zero = _entry(None, "not_acceptable_at_zero", logistic_status="not_acceptable_at_zero",
                  tested=DELAYS)  # fmt: skip
    slow = {d: {"max_delay_ms": zero, "max_loss_pct": zero} for d in ("downstream", "upstream")}
    slow["both"] = {"max_delay_ms": zero, "max_loss_pct": zero}
    all_paces = {
        "downstream": fast["downstream"],
        "upstream": {
            "max_delay_ms": _entry(
                None, "acceptable_at_all_tested_levels", alone=True, tested=DELAYS
            ),
            "max_loss_pct": _entry(None, "acceptable_at_all_tested_levels", tested=LOSSES),
        },
        "both": {
            "max_delay_ms": both_fast["max_delay_ms"],
            "max_loss_pct": _entry(
                0.75, "split", bracket=[0.5, 1.0], logistic=0.9,
                logistic_status="ci_unbounded", alone=True, tested=LOSSES,
            ),
        },
    }  # fmt: skip

    def cond(scenario: str, game: str, mos: float, net: tuple[float, ...]) -> dict[str, Any]:
        keys = ("ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct")
        return {
            "scenario": scenario,
            "game": game,
            "n": 10,
            "mos": mos,
            "ci95_low": mos - 0.3,
            "ci95_high": mos + 0.3,
            **dict(zip(keys, net, strict=True)),
        }

    conditions = []
    for game in ("racing", "all"):
        conditions += [
            cond("B", game, 4.5, (0, 0, 0, 0)),
            cond("D1", game, 3.8, (50, 50, 0, 0)),
            cond("D2", game, 2.6, (150, 150, 0, 0)),
            cond("L1", game, 3.9, (0, 0, 0.5, 0.5)),
            cond("L2", game, 2.2, (0, 0, 1.0, 1.0)),
        ]
    rules = [
        {
            "conditions": [
                {"feature": "ds_delay_ms", "op": "<=", "value": 100.0},
                {"feature": "ds_loss_pct", "op": "<=", "value": 0.75},
            ],
            "prediction": "acceptable",
            "n": 60.0,
            "p_acceptable": 0.9,
            "text": "IF ds_delay_ms <= 100 AND ds_loss_pct <= 0.75 THEN acceptable",
        },
        {
            "conditions": [
                {"feature": "ds_delay_ms", "op": ">", "value": 100.0},
                {"feature": "game_pace", "op": "=", "value": "fast"},
            ],
            "prediction": "not_acceptable",
            "n": 20.0,
            "p_acceptable": 0.2,
            "text": "IF ds_delay_ms > 100 AND game_pace = fast THEN not_acceptable",
        },
        {
            "conditions": [
                {"feature": "ds_delay_ms", "op": ">", "value": 100.0},
                {"feature": "game_pace", "op": "!=", "value": "fast"},
            ],
            "prediction": "acceptable",
            "n": 20.0,
            "p_acceptable": 0.6,
            "text": "IF ds_delay_ms > 100 AND game_pace != fast THEN acceptable",
        },
        {
            "conditions": [
                {"feature": "ds_delay_ms", "op": "<=", "value": 100.0},
                {"feature": "ds_loss_pct", "op": ">", "value": 0.75},
            ],
            "prediction": "not_acceptable",
            "n": 20.0,
            "p_acceptable": 0.1,
            "text": "IF ds_delay_ms <= 100 AND ds_loss_pct > 0.75 THEN not_acceptable",
        },
    ]
    return {
        "joint_model": hand_joint_model(),
        "warnings": [
            {
                "code": "dominant_raters",
                "message": "2 of 12 raters gave 60 % of the ratings",
                "where": "meta",
            },
        ],
        "meta": {
            "qoe_analysis_version": "0.1.0",
            "n_ratings": 120,
            "n_raters": 12,
            "n_sessions": 12,
            "n_ratings_analysed": 120,
            "acceptable_from": 3,
            "reliable_only": False,
            "reliability_cutoff": 0.6,
            "seed": 0,
            "games": {"racing": "fast", "soccer": "slow"},
        },
        "conditions": conditions,
        "weights": {
            "weka": {"ds_delay_ms": 0.2, "ds_loss_pct": 0.1},
            "rapidminer": {"ds_delay_ms": 1.0, "ds_loss_pct": 0.0},
            "conventions": {},
        },
        "tree": {"method": "hand-made", "training_accuracy": 0.8, "rules": rules},
        "thresholds": {
            "acceptable_from": 3,
            "criterion": "P(rating >= 3) >= 0.5 with all other network factors at 0",
            "by_pace": {"fast": fast, "slow": slow, "all": all_paces},
        },
    }


FAST_FLOW = {"cloud-gaming.fast": {"server_ip": "198.51.100.7", "server_port": 5004}}


@pytest.fixture
def hand_doc() -> dict[str, Any]:
    return hand_analysis()


@pytest.fixture
def hand_policy() -> dict[str, Any]:
    from qoe_analysis.policy import build_policy

    return build_policy(
        hand_analysis(),
        provenance={"study_id": "hand", "study_title": "Hand study", "study_version": 1},
        flows=FAST_FLOW,
        generated_at=GENERATED_AT,
    )


@pytest.fixture(scope="session")
def faucet_venv() -> Path:
    """var/tools/faucet-venv with Faucet installed (qoelab_testkit.faucet builds it)."""
    return build_faucet_venv()
