"""Profile `qoe-analysis analyze` in-process with cProfile on CPU time (not wall time, so a
busy machine does not distort the shares) and print the hot spots.

    PYTHONPATH=analysis/src .venv/bin/python analysis/bench/profile_analyze.py \
        var/bench/ratings_1000000.csv [--top 25] [--save var/bench/analyze.prof]

Prints the functions with the largest cumulative CPU time, their share of the whole run
(imports included: the profile starts before ``qoe_analysis.cli`` is imported) and writes
the raw profile for ``python -m pstats`` when ``--save`` is given. The analysis JSON goes
to /dev/null.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ratings")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--save", default=None)
    args = parser.parse_args()

    profiler = cProfile.Profile(time.process_time)
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        profiler.enable()
        from qoe_analysis.cli import main as cli_main

        code = cli_main(["analyze", args.ratings, "--seed", "0"])
        profiler.disable()
    if args.save:
        profiler.dump_stats(args.save)
    stats = pstats.Stats(profiler, stream=io.StringIO())
    total = sum(entry[2] for entry in stats.stats.values())  # type: ignore[attr-defined]
    rows = sorted(
        stats.stats.items(),  # type: ignore[attr-defined]
        key=lambda item: item[1][3],
        reverse=True,
    )
    print(f"total CPU {total:.2f} s (exit code {code})")
    print(f"{'cumulative':>10s} {'share':>6s}  function")
    shown = 0
    for (path, line, name), (_, _, _, cumulative, _) in rows:
        if "<frozen" in path or name in ("<module>", "exec", "<built-in method builtins.exec>"):
            continue
        where = path.split("site-packages/")[-1].split("/src/")[-1]
        print(f"{cumulative:9.2f}s {100 * cumulative / total:5.1f}%  {where}:{line}({name})")
        shown += 1
        if shown >= args.top:
            break
    return code


if __name__ == "__main__":
    raise SystemExit(main())
