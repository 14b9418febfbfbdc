"""Check: ``load_ratings``/``validate_ratings`` of this checkout against another tree's.

    .venv/bin/python analysis/bench/compare_loading.py --old /work/wt/base [--fuzz 300] \
        [var/bench/ratings_100000.csv …]

Runs both trees in child processes (``PYTHONPATH`` = the tree's analysis/src and
netem-profile/src) over the same inputs: fixed edge cases (escaped cells ``'=x``,
numeric-looking and boolean-looking ids, blank and missing cells, blank lines, malformed
CSV, the item/training/duration/provenance columns), ``--fuzz`` random mutations of a
small valid table (with and without the item columns), data frames given to
``validate_ratings`` directly (object, nullable, categorical, datetime, float columns),
every CSV under fixtures/ and analysis/tests/, and the files named on the command line.
A table must be identical (columns, order, dtypes, index, values, categories with their
dtype and order, codes with their dtype, attrs), an error identical in message, column
and line. Exit code 1 on any difference. Speed is not measured here.
"""

from __future__ import annotations

import argparse
import io
import os
import pickle
import random
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

HEADER = [
    *("rater_id", "session_id", "game", "game_pace", "scenario"),
    *("ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct", "rating", "age", "skill"),
]
ITEM_HEADER = ["item", "training", "response_ms", "since_end_ms", "agent_backend", "agent_version"]
BASE = [
    ["r1", "s1", "racing", "fast", "B", "0", "0", "0", "0", "5", "30", "low"],
    ["r1", "s1", "racing", "fast", "D1", "80", "80", "0", "0", "4", "30", "low"],
    ["r2", "s2", "soccer", "slow", "B", "0", "0", "0", "0", "4", "25", "high"],
    ["r2", "s2", "soccer", "slow", "D1", "80", "80", "0", "0", "3", "25", "high"],
    ["r3", "s3", "rpg", "medium", "B", "0", "0", "0", "0", "2", "41", "'-low"],
    ["r3", "s3", "rpg", "medium", "D1", "80", "80", "0", "0", "1", "41", "'-low"],
]
ITEM_BASE = [
    [*row, "overall", str(i % 2), str(1000 + i), "" if i % 3 else "5", "tc", "0.4.1"]
    for i, row in enumerate(BASE)
]
TEXTS = ["", " ", "NA", "nan", "'=x", "=x", "''=x", "'x", "'", "1", "01", "1.0", "2", "1e3"]
TEXTS += ["true", "FALSE", "True", "x y", " r1", "r1 ", "'+1", "+1", "-1", "'-1", "@a"]
TEXTS += ['"a,b"', "0x1", "inf", "-0", "null", "N/A", "é", "r1", "s1", "racing", "B"]
POOL = {
    "text": TEXTS,
    "pace": ["fast", "slow", "medium", "turbo", "'fast", "", "Fast"],
    "num": ["0", "80", "-5", "'-5", "abc", "", "1e2", "inf", "nan", "0.0", "-0.0", "'80", " 80"],
    "rating": ["1", "5", "3.5", "0", "6", "", "x", "'5", "4.0", "true"],
    "age": ["30", "", "x", "'-3", "1.5", "True"],
    "item": ["overall", "'=overall", "", "x", "Overall", " overall"],
    "training": ["0", "1", "true", "FALSE", "0.0", "1.0", "2", "", "-0.0", " 1", "'1", "-1"],
    "duration": ["", "1200", "0", "-0.0", "-5", "x", "inf", " ", "'5", "1e3", "nan"],
    "provenance": ["", "tc", " tc ", "'=tc", "=tc", "dry-run", "1", "1.0", "0.4.1", "NA"],
}
KIND = dict.fromkeys(("rater_id", "session_id", "game", "scenario", "skill"), "text")
KIND |= dict.fromkeys(("ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct"), "num")
KIND |= {"game_pace": "pace", "rating": "rating", "age": "age", "item": "item"}
KIND |= {"training": "training", "response_ms": "duration", "since_end_ms": "duration"}
KIND |= {"agent_backend": "provenance", "agent_version": "provenance"}


def csv_text(header: list[str], rows: list[list[str]], tail: str = "\n") -> str:
    return "\n".join([",".join(header), *(",".join(r) for r in rows)]) + tail


def fixed_texts() -> list[tuple[str, str]]:
    """Hand-made CSVs, one edge each."""

    def column(name: str, value: Callable[[list[str]], str]) -> str:
        at = HEADER.index(name)
        return csv_text(HEADER, [[*r[:at], value(r), *r[at + 1 :]] for r in BASE])

    wide = HEADER + ITEM_HEADER
    return [
        ("good", csv_text(HEADER, BASE)),
        ("escaped game merges", column("game", lambda r: "'=x" if r[0] == "r1" else "=x")),
        ("ids 1 01 1.0", column("rater_id", lambda r: {"r1": "1", "r2": "01"}.get(r[0], "1.0"))),
        ("numeric sessions", column("session_id", lambda r: r[1][1:])),
        ("boolean games", column("game", lambda r: {"racing": "true"}.get(r[2], "FALSE"))),
        ("numeric scenarios", column("scenario", lambda r: "1" if r[4] == "B" else "2")),
        ("float scenarios", column("scenario", lambda r: "1.5" if r[4] == "B" else "1e3")),
        ("blank rater", column("rater_id", lambda r: " " if r[4] == "B" else r[0])),
        ("quote only", column("rater_id", lambda r: "'" if r[0] == "r1" else r[0])),
        ("trailing blank lines", csv_text(HEADER, BASE, "\n\n\n")),
        ("inner blank line", csv_text(HEADER, [*BASE[:2], [""] * 12, *BASE[2:]])),
        ("empty", ""),
        ("header only", ",".join(HEADER) + "\n"),
        ("open quote", csv_text(HEADER, BASE) + 'r9,"s9,x\n'),
        ("too many cells", csv_text(HEADER, BASE) + ",".join("abcdefghijklmn") + "\n"),
        ("item columns", csv_text(wide, ITEM_BASE)),
        ("duplicated header", csv_text([*HEADER, "age"], [[*r, "1"] for r in BASE])),
    ]


def fuzzed_texts(count: int, wide: bool, seed: int) -> list[tuple[str, str]]:
    """``count`` random mutations of the small valid table (cells from :data:`POOL`,
    whole columns, duplicated rows, blank rows, dropped item columns, odd endings)."""
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        header = HEADER + ITEM_HEADER if wide else list(HEADER)
        rows = [list(r) for r in (ITEM_BASE if wide else BASE)]
        for _ in range(rnd.choice([1, 1, 2, 3, 5])):
            r, c = rnd.randrange(len(rows)), rnd.randrange(len(header))
            rows[r][c] = rnd.choice(POOL[KIND[header[c]]])
        if rnd.random() < 0.25:
            c = rnd.randrange(len(header))
            for r in rows:
                r[c] = rnd.choice(POOL[KIND[header[c]]])
        if wide and rnd.random() < 0.2:
            drop = rnd.randrange(len(HEADER), len(header))
            header.pop(drop)
            for r in rows:
                r.pop(drop)
        if rnd.random() < 0.15:
            rows.append(list(rnd.choice(rows)))
        if rnd.random() < 0.1:
            rows.insert(rnd.randrange(len(rows)), [""] * len(header))
        tail = rnd.choice(["\n", "\n", "\n\n\n", "", "\n" + "," * (len(header) - 1) + "\n"])
        out.append((f"{'wide ' if wide else ''}fuzz {i}", csv_text(header, rows, tail)))
    return out


def frames() -> list[tuple[str, Any]]:
    """Data frames given to ``validate_ratings`` directly."""
    import numpy as np
    import pandas as pd

    base = pd.read_csv(io.StringIO(csv_text(HEADER + ITEM_HEADER, ITEM_BASE)))
    columns: list[tuple[str, str, Any]] = [
        ("mixed 1 and '1'", "rater_id", pd.Series([1, "1", 2, 2, 3, "3"], dtype=object)),
        ("int raters", "rater_id", [1, 1, 2, 2, 3, 3]),
        ("float raters, NaN", "rater_id", [1.0, 1.0, 2.0, np.nan, 3.0, 3.0]),
        (
            "unused categories",
            "rater_id",
            pd.Categorical(
                ["r1"] * 2 + ["r2"] * 2 + ["r3"] * 2, categories=["z", "r3", "r2", "r1"]
            ),
        ),
        ("unsorted categories", "skill", pd.Categorical(list("babacc"), categories=list("cba "))),
        ("bool games", "game", [True, True, False, False, True, True]),
        ("None skill", "skill", pd.Series(["a", None, "b", "b", "c", "c"], dtype=object)),
        ("escaped, not un-escaped", "skill", pd.Series(["a", "'=a", "b", "b", "c", "c"])),
        (
            "datetime sessions",
            "session_id",
            pd.to_datetime(["2020-01-01"] * 3 + ["2020-01-02"] * 3),
        ),
        ("blank skill", "skill", pd.Series([" ", "a", "b", "b", "c", "c"])),
        ("-0.0 delay", "ds_delay_ms", [0.0, 80.0, -0.0, 80.0, 0.0, 80.0]),
        ("string NA", "rater_id", pd.array(["r1", "r1", "r2", pd.NA, "r3", "r3"], dtype="string")),
        ("Int64 raters", "rater_id", pd.array([1, 1, 2, 2, 3, 3], dtype="Int64")),
        ("Int64 training", "training", pd.array([0, 1, None, 1, 0, 1], dtype="Int64")),
        ("float training", "training", [0.0, 1.0, -0.0, 1.0, 0.0, 1.0]),
        ("object training", "training", pd.Series([0, 1, "1", 0.0, True, -0.0], dtype=object)),
        ("uint8 training", "training", np.array([0, 1, 0, 1, 0, 2], dtype=np.uint8)),
        ("Float64 durations", "response_ms", pd.array([1.0, None, 3, 4, 5, 6], dtype="Float64")),
        ("int durations", "response_ms", [1, 2, 3, 4, 5, -6]),
        ("inf duration", "response_ms", [1.0, np.nan, -0.0, np.inf, 5.0, 6.0]),
        ("text durations", "response_ms", pd.Series(["1", "", " ", None, "5", "x"], dtype=object)),
        (
            "object backend",
            "agent_backend",
            pd.Series(["tc", None, " tc", 1, 1.0, "x"], dtype=object),
        ),
        (
            "string backend",
            "agent_backend",
            pd.Series(["tc", None, " tc", "1", "", "x"], dtype="string"),
        ),
        ("float version", "agent_version", [1.5, np.nan, 2.0, -0.0, 0.0, 1.5]),
    ]
    out: list[tuple[str, Any]] = [("plain frame", base), ("reversed rows", base.iloc[::-1])]
    for name, column, values in columns:
        frame = base.copy()
        frame[column] = values
        out.append((name, frame))
    return out


def csv_files(extra: list[str]) -> list[str]:
    found = sorted(str(p) for p in (ROOT / "fixtures").rglob("*.csv"))
    found += sorted(str(p) for p in (ROOT / "analysis" / "tests").rglob("*.csv"))
    return found + extra


def outcome(run: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    """Of ``run(*args, **kwargs)``: ("ok", table without attrs, attrs) or ("error",
    message, column, line)."""
    from qoe_analysis import RatingsValidationError

    try:
        table = run(*args, **kwargs)
    except RatingsValidationError as err:
        return ("error", str(err), err.column, err.line)
    except Exception as err:  # the same unexpected error on both sides is a match too
        return ("exception", type(err).__name__, str(err))
    attrs = {k: (v() is table if isinstance(v, weakref.ref) else v) for k, v in table.attrs.items()}
    plain = table.copy()
    plain.attrs = {}
    return ("ok", plain, attrs)


def dump(path: str, fuzz: int, extra: list[str]) -> None:
    """Child: every case's outcome under the qoe_analysis on sys.path, pickled to ``path``."""
    from qoe_analysis import load_ratings, validate_ratings

    texts = fixed_texts() + fuzzed_texts(fuzz, False, 0) + fuzzed_texts(fuzz, True, 1)
    results = {name: outcome(load_ratings, io.StringIO(text)) for name, text in texts}
    for name, frame in frames():
        results[name] = outcome(validate_ratings, frame.copy())
        results[name + " (line 2)"] = outcome(validate_ratings, frame.copy(), first_line=2)
    for file in csv_files(extra):
        results[file] = outcome(load_ratings, file)
    with open(path, "wb") as handle:
        pickle.dump(results, handle)


def difference(old: tuple[Any, ...], new: tuple[Any, ...]) -> str | None:
    """Why two outcomes differ, or None."""
    import numpy as np
    import pandas as pd

    if old[0] != new[0] or old[0] != "ok":
        return None if old == new else f"{old[:4]!r} != {new[:4]!r}"
    a, b = old[1], new[1]
    if old[2] != new[2]:
        return f"attrs {old[2]!r} != {new[2]!r}"
    try:
        pd.testing.assert_frame_equal(a, b, check_exact=True, check_categorical=True)
    except AssertionError as err:
        return str(err)
    if not a.index.equals(b.index) or type(a.index) is not type(b.index):
        return "index"
    for column in a.columns:
        x, y = a[column], b[column]
        if str(x.dtype) != str(y.dtype):
            return f"{column}: dtype {x.dtype} != {y.dtype}"
        if isinstance(x.dtype, pd.CategoricalDtype):
            cx, cy = x.cat.categories, y.cat.categories
            if cx.dtype != cy.dtype or list(cx) != list(cy) or x.cat.ordered != y.cat.ordered:
                return f"{column}: categories {list(cx)[:5]} != {list(cy)[:5]}"
            if x.cat.codes.dtype != y.cat.codes.dtype or not np.array_equal(
                x.cat.codes.to_numpy(), y.cat.codes.to_numpy()
            ):
                return f"{column}: codes"
        elif x.dtype.kind == "f" and not np.array_equal(
            np.signbit(x.to_numpy()), np.signbit(y.to_numpy())
        ):
            return f"{column}: sign of zero"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="more CSV files (e.g. var/bench/ratings_*.csv)")
    parser.add_argument("--old", required=True, help="root of the tree to compare with")
    parser.add_argument("--fuzz", type=int, default=300, help="random cases of each shape")
    parser.add_argument("--dump", help=argparse.SUPPRESS)  # child mode
    args = parser.parse_args()
    if args.dump:
        dump(args.dump, args.fuzz, args.files)
        return 0
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for side, tree in (("old", Path(args.old)), ("new", ROOT)):
            env = dict(os.environ)
            env["PYTHONPATH"] = f"{tree}/analysis/src{os.pathsep}{tree}/netem-profile/src"
            out = f"{tmp}/{side}.pkl"
            cmd = [sys.executable, __file__, "--old", args.old, "--fuzz", str(args.fuzz)]
            subprocess.run([*cmd, "--dump", out, *args.files], check=True, env=env)
            with open(out, "rb") as handle:
                results[side] = pickle.load(handle)
    differing = 0
    for name, old in results["old"].items():
        why = difference(old, results["new"][name])
        if why is not None:
            differing += 1
            print(f"DIFFERENT {name}: {why[:400]}")
    kinds = [outcome[0] for outcome in results["old"].values()]
    print(
        f"{len(kinds)} cases ({kinds.count('ok')} tables, {kinds.count('error')} errors): "
        f"{differing} different"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
