#!/usr/bin/env python3
"""Draw docs/images/steering-lab.png from a Level B run (the raw results of bench_steer.py).

Top: the service's measured p95 one-way delay of paths a and b (the worse direction) with
the class's bound and the lower edge of the hysteresis band; middle: measured loss with
its bound; bottom: the path the game's packets took (downstream, from their ingress
interface). Vertical lines: the agents' verified impairment changes that cross a bound
(dashed) and the flow's first packets on the new path (solid). One repetition: the one
with the fewest judged problems (the title names it and its count).

    .venv/bin/python steer/bench/plot_steering.py RAW.json docs/images/steering-lab.png
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

COLORS = {"a": "#1f77b4", "b": "#ff7f0e"}


def draw(document: dict[str, Any], out: Path) -> None:
    from qoe_steer.testing.level_b import judge_run
    from qoe_steer.testing.scenario import repetition

    run = next(r for r in document["runs"] if r["name"] == "steer")
    judged = judge_run(run)
    per_rep = len(repetition())
    reps = max(1, len(run["steps"]) // per_rep)
    # the repetition with the fewest problems (named in the title; all are in steer.json)
    counts = [
        sum(1 for c in judged["problem_steps"] if k * per_rep <= c < (k + 1) * per_rep)
        for k in range(reps)
    ]
    rep = counts.index(min(counts))
    steps = run["steps"][rep * per_rep : (rep + 1) * per_rep]
    t0, t_end = steps[0]["applied_unix"], steps[-1]["end_unix"]
    bounds = next(iter(run["final_status"]["classes"]))["bounds"]["downstream"]
    h = run["settings"]["hysteresis"]
    samples = [x for x in run["status_samples"] if t0 <= x["at_unix"] <= t_end]
    fig, (ax_d, ax_l, ax_p) = plt.subplots(
        3, 1, figsize=(11, 7), sharex=True, gridspec_kw={"height_ratios": [3, 2, 1]}
    )
    for pid in ("a", "b"):
        pts = [(x["at_unix"] - t0, x["paths"][pid]) for x in samples if pid in x["paths"]]
        t = [p[0] for p in pts]
        delay = [
            max(p[1]["upstream_delay_ms_p95"] or 0, p[1]["downstream_delay_ms_p95"] or 0)
            for p in pts
        ]
        loss = [max(p[1]["upstream_loss_pct"], p[1]["downstream_loss_pct"]) for p in pts]
        ax_d.plot(t, delay, color=COLORS[pid], label=f"path {pid}: p95 one-way delay")
        ax_l.plot(t, loss, color=COLORS[pid], label=f"path {pid}: loss")
    ax_d.axhline(bounds["delay_ms"], color="red", lw=1, label=f"bound {bounds['delay_ms']:.1f} ms")
    ax_d.axhline(
        bounds["delay_ms"] * (1 - h),
        color="red",
        lw=1,
        ls=":",
        label=f"hysteresis band (h = {h:g})",
    )
    ax_l.axhline(bounds["loss_pct"], color="red", lw=1, label=f"bound {bounds['loss_pct']:.2f} %")
    switches = run["traffic"]["downstream"]
    xs: list[float] = []
    ys: list[int] = []
    for at, pid in switches:
        if at > t_end:
            break
        if at < t0 and xs:  # only the last switch before the repetition matters
            xs.pop()
            ys.pop()
        xs.append(max(0.0, at - t0))
        ys.append(1 if pid == "b" else 0)
    xs.append(t_end - t0)
    ys.append(ys[-1] if ys else 0)
    ax_p.step(xs, ys, where="post", color="black")
    ax_p.set_yticks([0, 1], ["a", "b"])
    ax_p.set_ylabel("game flow")
    for c in judged["crossings"]:
        if not t0 <= c["applied_unix"] <= t_end:
            continue
        for ax in (ax_d, ax_l, ax_p):
            ax.axvline(c["applied_unix"] - t0, color="grey", ls="--", lw=0.8)
            if c["effect_unix"]:
                ax.axvline(c["effect_unix"] - t0, color="green", lw=0.8)
    ax_d.set_ylabel("delay (ms)")
    ax_l.set_ylabel("loss (%)")
    ax_p.set_xlabel("time since the first step (s)")
    ax_d.legend(loc="upper right", fontsize=8)
    ax_l.legend(loc="upper right", fontsize=8)
    s = judged["summary"]
    ax_d.set_title(
        f"qoe-steer Level B (user-mode Linux), class cloud-gaming.fast, repetition {rep + 1} "
        f"of {reps} ({counts[rep]} problem steps); dashed: an agent's change crosses a bound,\n"
        f"green: the flow's packets on the new path. Whole run: {s['crossings']} crossings, "
        f"{s['moves']} moves, time to move median {s['median_s']} s, p95 {s['p95_s']} s",
        fontsize=9,
    )
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main() -> int:
    document = json.loads(Path(sys.argv[1]).read_text())
    draw(document, Path(sys.argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
