"""Baseline: the plain pandas/SciPy/scikit-learn script a researcher would write instead of
`qoe-analysis analyze` (bench_analyze.py times the two against each other).

    python analysis/bench/baseline_pandas.py RATINGS.csv > summary.json

MOS, SOS and the Student-t 95 % CI per condition (scenario x game), Spearman rho of each
rater's ratings with the condition MOS (ranks within the rater, then Pearson), information
gain in bits of every factor for "rating >= 3" (each distinct value its own branch), and an
entropy decision tree (min 2 per leaf) for the same target. Prints a small JSON summary.
"""

import json
import sys

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.tree import DecisionTreeClassifier

df = pd.read_csv(sys.argv[1])
factors = [c for c in df.columns if c not in ("rater_id", "session_id", "scenario", "rating")]

cond = df.groupby(["scenario", "game"])["rating"].agg(n="size", mos="mean", sos="std")
half = stats.t.ppf(0.975, cond["n"] - 1) * cond["sos"] / np.sqrt(cond["n"])
cond["ci_low"], cond["ci_high"] = cond["mos"] - half, cond["mos"] + half

df["mos"] = df.groupby(["scenario", "game"])["rating"].transform("mean")
ranks = df.groupby("rater_id")[["rating", "mos"]].rank()
centred = ranks - ranks.groupby(df["rater_id"]).transform("mean")
sums = (centred["rating"] * centred["mos"]).groupby(df["rater_id"]).sum()
norms = (centred**2).groupby(df["rater_id"]).sum()
rho = sums / np.sqrt(norms["rating"] * norms["mos"])

y = (df["rating"] >= 3).astype(int)


def entropy(counts: pd.Series) -> float:
    p = counts / counts.sum()
    return float(-(p * np.log2(p.where(p > 0, 1))).sum())


gain = {}
for f in factors:
    table = pd.crosstab(df[f], y)
    weights = table.sum(axis=1) / len(df)
    gain[f] = entropy(y.value_counts()) - sum(
        w * entropy(row) for w, (_, row) in zip(weights, table.iterrows(), strict=True)
    )

X = pd.get_dummies(df[factors], dtype=float)
tree = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2, random_state=0).fit(X, y)

summary = {
    "conditions": len(cond),
    "mean_mos": float(cond["mos"].mean()),
    "raters": int(rho.size),
    "median_rho": float(rho.median()),
    "info_gain_bits": gain,
    "tree_leaves": int(tree.get_n_leaves()),
    "tree_training_accuracy": float(tree.score(X, y)),
}
print(json.dumps(summary, indent=2))
