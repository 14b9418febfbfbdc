"""Correlations between rating items: per condition (scenario, games pooled) between the
items' MOS, and per rating between the items' values of the same rating slot.

Does input quality drive overall quality under delay? Per pair of items (declaration
order): Pearson's r and Spearman's ρ of the per-scenario MOS (``scipy.stats.pearsonr`` /
``spearmanr``, two-sided p), over the scenarios both items rated; and Spearman's ρ over all
rating slots (rater, session, scenario) that rated both (ordinal values, ties averaged).
A correlation needs at least 3 points that are not all equal on either side, else None.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.tabular import column_codes
from qoe_analysis.tidy.design import RATER, RATING, SCENARIO, SESSION

# SciPy and scikit-learn are imported inside the functions that use them: importing
# qoe_analysis (and the CLI) stays cheap, see docs/performance.md.

__all__ = ["correlation", "item_correlations", "mos_by_scenario"]

_SLOT = [RATER, SESSION, SCENARIO]


def correlation(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], method: str) -> dict[str, Any]:
    """{r, p, n} of Pearson (``method="pearson"``) or Spearman; r and p None if undefined."""
    n = int(x.size)
    if n < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {"r": None, "p": None, "n": n}
    from scipy import stats  # type: ignore[import-untyped]

    fn = stats.pearsonr if method == "pearson" else stats.spearmanr
    result = fn(x, y)
    return {"r": float(result[0]), "p": float(result[1]), "n": n}


def _mos_by_text(scenarios: pd.Series, ratings: pd.Series) -> pd.Series:
    """``ratings.groupby(scenarios.astype(str)).mean()``, summed on the scenarios' integer
    codes: the scenarios of a million ratings are not turned into a million strings.

    Only the distinct scenarios become text; distinct values with the same text (``1`` and
    ``"1"``) are one group, as in the text grouping. NaN ratings are skipped. The sums are
    plain sums, where pandas compensates (Kahan): the same for whole-number ratings, within
    rounding otherwise.
    """
    codes, uniques = column_codes(scenarios)
    if (codes < 0).any():  # a missing scenario: its text ("nan") is the grouping's business
        return ratings.groupby(scenarios.astype(str)).mean()
    values = ratings.to_numpy(dtype=np.float64)
    rated = ~np.isnan(values)
    size = len(uniques)
    sums = pd.DataFrame(
        {
            "text": [str(u) for u in uniques],
            "sum": np.bincount(codes[rated], values[rated], size),
            "n": np.bincount(codes[rated], minlength=size),
            "rows": np.bincount(codes, minlength=size),
        }
    )
    by_text = sums[sums["rows"] > 0].groupby("text", sort=True)[["sum", "n"]].sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        mos = by_text["sum"].to_numpy() / by_text["n"].to_numpy()
    return pd.Series(mos, index=by_text.index.rename(SCENARIO), name=RATING)


def mos_by_scenario(tables: Mapping[str, pd.DataFrame], keys: Sequence[str]) -> pd.DataFrame:
    """MOS per scenario (rows, sorted) and item (columns); NaN where an item has no rating."""
    columns = {key: _mos_by_text(tables[key][SCENARIO], tables[key][RATING]) for key in keys}
    return pd.DataFrame(columns).sort_index()


def item_correlations(tables: Mapping[str, pd.DataFrame], keys: Sequence[str]) -> dict[str, Any]:
    """The ``item_correlations`` section: the per-scenario MOS table and every item pair."""
    mos = mos_by_scenario(tables, keys)
    # each item's ratings keyed by slot, for the rating-level pairs: none with one item
    slots = {
        key: tables[key][[*_SLOT, RATING]]
        .astype({c: str for c in _SLOT})
        .rename(columns={RATING: key})
        for key in (keys if len(keys) > 1 else ())
    }
    pairs = []
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            both = mos[[a, b]].dropna()
            x, y = both[a].to_numpy(np.float64), both[b].to_numpy(np.float64)
            joint = slots[a].merge(slots[b], on=_SLOT, how="inner")
            pairs.append(
                {
                    "items": [a, b],
                    "conditions": {
                        "pearson": correlation(x, y, "pearson"),
                        "spearman": correlation(x, y, "spearman"),
                    },
                    "ratings": {
                        "spearman": correlation(
                            joint[a].to_numpy(np.float64), joint[b].to_numpy(np.float64), "spearman"
                        )
                    },
                }
            )
    return {
        "condition": "scenario (all games pooled)",
        "mos": [
            {
                SCENARIO: str(s),
                "mos": {k: (None if pd.isna(v) else float(v)) for k, v in row.items()},
            }
            for s, row in mos.iterrows()
        ],
        "pairs": pairs,
    }
