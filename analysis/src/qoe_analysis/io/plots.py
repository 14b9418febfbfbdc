"""PNG figures of an analysis document (counterparts of figures 4.2–4.7 of the dissertation).

Only used by the CLI with ``--out``; everything is drawn from the document returned by
:func:`qoe_analysis.analyze`, so the figures show exactly the printed numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from qoe_analysis.stats.sos_hypothesis import sos_from_mos

__all__ = ["write_plots"]


def write_plots(doc: Mapping[str, Any], out_dir: Path) -> list[Path]:
    """Write the figures into ``out_dir``; returns the written paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    # the primary item's scale bounds (documents without items: ACR 1..5)
    primary = doc.get("meta", {}).get("primary_item")
    scale = doc.get("per_item", {}).get(primary, {}).get("scale") or {"min": 1, "max": 5}
    y_min, y_max = float(scale["min"]), float(scale["max"])
    conds = [c for c in doc["conditions"] if c["game"] != "all"]
    games = sorted({c["game"] for c in conds})
    scenarios = sorted({c["scenario"] for c in conds})

    def save(fig: Any, name: str) -> None:
        path = out_dir / name
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    # MOS per scenario and game with 95 % CI (figure 4.5).
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / max(len(games), 1)
    for i, game in enumerate(games):
        by_s = {c["scenario"]: c for c in conds if c["game"] == game}
        mos = np.array([by_s[s]["mos"] if s in by_s else np.nan for s in scenarios], float)
        low = np.array([by_s[s]["ci95_low"] or np.nan if s in by_s else np.nan for s in scenarios])
        high = np.array(
            [by_s[s]["ci95_high"] or np.nan if s in by_s else np.nan for s in scenarios]
        )
        x = np.arange(len(scenarios)) + (i - (len(games) - 1) / 2) * width
        ax.bar(x, mos, width, label=game, yerr=[mos - low, high - mos], capsize=2)
    ax.set_xticks(np.arange(len(scenarios)), scenarios)
    ax.set_ylim(y_min, y_max)
    ax.set_ylabel("MOS (95 % CI)")
    ax.legend()
    save(fig, "mos_per_scenario.png")

    # MOS vs impairment level for the delay-only and loss-only groups (figures 4.6, 4.7).
    groups = doc["reliability"]["scenario_groups"]
    for name, unit in (("delay_only", "one-way delay [ms]"), ("loss_only", "loss [%]")):
        levels = groups.get(name)
        if not levels:
            continue
        fig, ax = plt.subplots(figsize=(5, 4))
        for game in games:
            pts = sorted(
                (levels[c["scenario"]], c)
                for c in conds
                if c["game"] == game and c["scenario"] in levels
            )
            x = np.array([p[0] for p in pts])
            mos = np.array([p[1]["mos"] for p in pts])
            err = np.array(
                [mos_i - (p[1]["ci95_low"] or mos_i) for mos_i, p in zip(mos, pts, strict=True)]
            )
            ax.errorbar(x, mos, yerr=err, marker="o", capsize=3, label=game)
        ax.set_xlabel(unit)
        ax.set_ylabel("MOS (95 % CI)")
        ax.set_ylim(y_min, y_max)
        ax.legend()
        save(fig, f"mos_vs_{name}.png")

    # SOS vs MOS with the fitted SOS hypothesis (figure 4.4).
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.scatter([c["mos"] for c in conds], [c["sos"] or np.nan for c in conds], s=14)
    m = np.linspace(y_min, y_max, 101)
    for label, fit in (
        ("all", doc["sos_hypothesis"]["all_raters"]),
        ("reliable", doc["sos_hypothesis"]["reliable_raters"]),
    ):
        if fit and fit.get("a") is not None:
            ax.plot(
                m, sos_from_mos(m, fit["a"], y_min, y_max), label=f"{label}: a = {fit['a']:.3f}"
            )
    ax.set_xlabel("MOS")
    ax.set_ylabel("SOS")
    if ax.get_legend_handles_labels()[0]:  # no fitted curve yet (pilot data): no legend
        ax.legend()
    save(fig, "sos_vs_mos.png")

    # CDF of intra-rater |rho| (figure 4.2).
    rho = np.array([abs(r["rho"]) for r in doc["reliability"]["intra"] if r["rho"] is not None])
    if rho.size:
        fig, ax = plt.subplots(figsize=(5, 4))
        xs = np.sort(rho)
        ax.step(xs, np.arange(1, xs.size + 1) / xs.size, where="post")
        ax.axvline(doc["reliability"]["cutoff"], color="grey", linestyle="--")
        ax.set_xlabel("|Spearman rho| (intra-rater)")
        ax.set_ylabel("CDF")
        save(fig, "intra_rater_cdf.png")

    # Inter-rater agreement per group and game (figure 4.3).
    inter = [i for i in doc["reliability"]["inter"] if i["quantiles"]]
    if inter:
        fig, ax = plt.subplots(figsize=(8, 4))
        labels = [f"{i['group']}\n{i['game']}" for i in inter]
        med = np.array([i["quantiles"]["q50"] for i in inter])
        lo = np.array([i["quantiles"]["q25"] for i in inter])
        hi = np.array([i["quantiles"]["q75"] for i in inter])
        ax.errorbar(np.arange(len(inter)), med, yerr=[med - lo, hi - med], fmt="o", capsize=3)
        ax.scatter(np.arange(len(inter)), [i["mean"] for i in inter], marker="x", label="mean")
        ax.set_xticks(np.arange(len(inter)), labels, fontsize=7)
        ax.set_ylabel("pairwise Spearman rho (median, IQR)")
        ax.legend()
        save(fig, "inter_rater.png")

    # Information-gain weights, both conventions.
    weights = doc["weights"]
    names = list(weights["rapidminer"])
    fig, axes = plt.subplots(1, 2, figsize=(9, 4))
    axes[0].barh(names, [weights["weka"][n] for n in names])
    axes[0].set_title("Weka InfoGain [bits]")
    axes[1].barh(names, [weights["rapidminer"][n] for n in names])
    axes[1].set_title("RapidMiner (normalised)")
    save(fig, "weights.png")
    return written
