"""Issue 31's pilot: 2 games, 12 scenarios, 3 raters per game of whom one rates at random.
Over 50 seeds the random rater is never "reliable" under any rule, and analyze() runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis import analyze, load_ratings, validate_ratings
from qoe_analysis.report import NoReliableRatersError
from qoe_analysis.synthetic_pilot import pilot_dataset

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "data" / "pilot_random_rater.csv"


def test_pilot_shape_and_truth() -> None:
    df, truth = pilot_dataset(3)
    validated = validate_ratings(df)
    assert len(validated) == 72 and df["scenario"].nunique() == 12
    assert df.groupby("game")["rater_id"].nunique().to_dict() == {"racing": 3, "soccer": 3}
    assert df.groupby("rater_id")["session_id"].nunique().eq(1).all()
    assert (df["ds_delay_ms"] == df["us_delay_ms"]).all()
    assert (df["ds_loss_pct"] == df["us_loss_pct"]).all()
    games = df.drop_duplicates("rater_id").set_index("rater_id")["game"]
    assert sorted(games[list(truth.random_raters)]) == ["racing", "soccer"]
    assert len(truth.careful_raters) == 4
    # careful raters' ratings fall with the impairment; the model's mean does too
    careful = df[df["rater_id"].isin(truth.careful_raters)]
    impairment = careful["ds_delay_ms"] / 100 * 0.9 + careful["ds_loss_pct"] * 0.6
    assert np.corrcoef(impairment, careful["rating"])[0, 1] < -0.7
    assert truth.careful_mean("fast", 200.0, 3.0) == pytest.approx(4.6 - 1.2 * (1.8 + 1.8))


def test_the_fixture_is_seed_zero() -> None:
    df, truth = pilot_dataset(0)
    table = pd.read_csv(FIXTURE, dtype={"rater_id": str, "session_id": str})
    pd.testing.assert_frame_equal(table, df, check_dtype=False)
    sidecar = json.loads(FIXTURE.with_suffix(".truth.json").read_text())
    assert sidecar["random_raters"] == list(truth.random_raters)
    assert len(load_ratings(FIXTURE)) == 72


def _status(rows: list[dict[str, Any]], rater: str) -> str:
    return next(str(r["status"]) for r in rows if r["rater_id"] == rater)


@pytest.mark.parametrize("seed", range(50))
def test_the_random_rater_is_never_reliable(seed: int) -> None:
    df, truth = pilot_dataset(seed)
    doc = analyze(df)
    json.dumps(doc, allow_nan=False)
    rel = doc["reliability"]
    p913 = rel["screening"]["p913"]
    for rater in truth.random_raters:
        assert _status(rel["intra"], rater) != "reliable"
        assert _status(p913["per_rater"], rater) != "reliable"
        assert rater not in rel["reliable_raters"]
        entry = next(e for e in rel["rater_status"] if e["rater_id"] == rater)
        # straight-lining only asks whether a session is flat: a random rater's is not
        assert entry["intra_rater"] != "reliable" and entry["p913"] != "reliable"
    # three raters per game: no condition has the four P.913 needs; one session of four
    # delay-only levels cannot tell a careful rater from a random one (p ~ 0.23)
    assert p913["status"] == "not_assessable" and p913["n_conditions_used"] == 0
    assert all(r["p_random_pass"] > 0.01 for r in rel["intra"])
    assert doc["meta"]["n_reliable_raters"] == 0 and doc["meta"]["reliable_share"] == 0.0
    # the warnings name what cannot be assessed
    where = {w["where"] for w in doc["warnings"] if w["code"] == "not_assessable"}
    assert "reliability.screening.p913" in where
    with pytest.raises(NoReliableRatersError, match="would keep 0 of 6 raters"):
        analyze(df, reliable_only=True)
