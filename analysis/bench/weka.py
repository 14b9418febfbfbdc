"""Weka 3.6 InfoGainAttributeEval + REPTree, the reference the 1 M-rating goal compares with.

``bench_analyze.py`` runs both on an ARFF of the same factors and target as
``qoe-analysis analyze`` uses, and checks that the information gains agree.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

JARS = (Path("/usr/share/java/weka.jar"), Path("/usr/share/java/weka-3.6.14.jar"))
HOWTO = (
    "install Weka and Java to measure it: apt-get install -y weka default-jre "
    "(scripts/run-benchmarks.sh does when it runs as root)"
)


def find_jar() -> Path | None:
    """weka.jar when it and ``java`` are installed, else None."""
    if shutil.which("java") is None:
        return None
    return next((jar for jar in JARS if jar.exists()), None)


def write_arff(csv_path: str, arff_path: str, acceptable_from: str) -> None:
    """The same factors as `qoe-analysis analyze` uses, target rating >= acceptable_from."""
    from qoe_analysis import load_ratings
    from qoe_analysis.io.arff import to_arff
    from qoe_analysis.report import factor_frame

    table = load_ratings(csv_path)
    y = (table["rating"].to_numpy() >= float(acceptable_from)).astype(int)
    Path(arff_path).write_text(
        to_arff(factor_frame(table), y, relation="qoe_bench"), encoding="utf-8"
    )


def commands(jar: Path, arff: Path, heap: str) -> dict[str, list[str]]:
    """The two Weka runs: the information-gain ranking and a REPTree (min 2 per leaf)."""
    java = ["java", f"-Xmx{heap}", "-cp", str(jar)]
    return {
        "infogain": [
            *java,
            "weka.attributeSelection.InfoGainAttributeEval",
            "-s",
            "weka.attributeSelection.Ranker",
            "-i",
            str(arff),
        ],
        "reptree": [*java, "weka.classifiers.trees.REPTree", "-t", str(arff), "-no-cv", "-M", "2"],
    }


def infogain_difference(weka_output: Path, analysis_json: Path) -> float | None:
    """Largest |ours − Weka| over the factors (Weka's Ranker prints 8 decimals)."""
    ours = json.loads(analysis_json.read_text())["weights"]["weka"]
    diffs = []
    in_ranking = False
    for line in weka_output.read_text().splitlines():
        if line.startswith("Ranked attributes"):
            in_ranking = True
            continue
        parts = line.split()
        if in_ranking and len(parts) == 3:
            diffs.append(abs(float(parts[0]) - ours[parts[2]]))
        elif in_ranking and not parts:
            break
    return max(diffs) if diffs else None
