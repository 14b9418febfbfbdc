"""scripts/bench_report.py: the `make bench` summary and the README section it writes."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_report.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_report", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench_report = _load()


def goal(**patch: object) -> dict[str, object]:
    base: dict[str, object] = {
        "goal": "analyze 1,200 ratings, wall",
        "measured": 0.62,
        "unit": "s",
        "baseline": "pandas script",
        "baseline_measured": 1.24,
        "ratio": 0.5,
        "target": "<= 1.0 s",
        "pass": True,
    }
    return {**base, **patch}


def write(directory: Path, name: str, document: object) -> None:
    (directory / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")


def test_summary_table_readme_section_and_exit_status(tmp_path: Path) -> None:
    write(tmp_path, "analysis", {"goals": [goal()], "runs": [1, 2]})
    write(
        tmp_path,
        "agent",
        {
            "goals": [
                goal(
                    goal="agent p99",
                    measured=12.5,
                    unit="ms",
                    ratio=None,
                    baseline=None,
                    target="<= 10 ms",
                    **{"pass": False},
                )
            ]
        },
    )
    write(tmp_path, "frontend", {"participant_kb": 78.8})
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- bench:start -->\nold figures\n<!-- bench:end -->\nrest\n")

    status = bench_report.main(["--bench-dir", str(tmp_path), "--readme", str(readme)])

    assert status == 1  # one goal failed
    text = readme.read_text()
    assert "old figures" not in text
    assert text.startswith("intro\n<!-- bench:start -->\n| benchmark |")
    assert text.endswith("<!-- bench:end -->\nrest\n")
    assert "| agent | agent p99 | 12.5 ms | — | — | <= 10 ms | **fail** |" in text
    assert (
        "| analysis | analyze 1,200 ratings, wall | 0.62 s | pandas script: 1.24 s | 0.5× |" in text
    )
    assert "Results without goals: frontend.json." in text
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["failed"] == 1 and len(summary["goals"]) == 2


def test_all_goals_passing_exit_zero(tmp_path: Path) -> None:
    write(tmp_path, "analysis", {"goals": [goal()]})
    assert bench_report.main(["--bench-dir", str(tmp_path)]) == 0
    # The summary it wrote is not read back as a benchmark.
    assert bench_report.main(["--bench-dir", str(tmp_path)]) == 0


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"goals": {}}, "'goals' must be a list"),
        ({"goals": [{"goal": "x"}]}, "missing measured, unit, target, pass"),
        ({"goals": [goal(measured="fast")]}, "expected a number or null"),
        ({"goals": [goal(**{"pass": "yes"})]}, "'pass' must be true or false"),
    ],
)
def test_a_malformed_results_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: object, message: str
) -> None:
    write(tmp_path, "broken", document)
    assert bench_report.main(["--bench-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "broken" in err and message in err


def test_no_results_and_no_readme_markers_are_errors(tmp_path: Path) -> None:
    assert bench_report.main(["--bench-dir", str(tmp_path)]) == 2
    write(tmp_path, "analysis", {"goals": [goal()]})
    readme = tmp_path / "README.md"
    readme.write_text("no markers here\n")
    assert bench_report.main(["--bench-dir", str(tmp_path), "--readme", str(readme)]) == 2
    assert readme.read_text() == "no markers here\n"  # left as it was


@pytest.mark.parametrize(
    ("spread", "passed", "verdict"),
    [
        ([0.15, 0.19], True, "pass"),  # every run met the limit
        ([0.17, 0.23], True, "pass, within noise"),  # the median met it, one run did not
        ([0.19, 0.26], False, "**fail, within noise**"),
        ([0.21, 0.26], False, "**fail**"),
    ],
)
def test_a_spread_across_the_limit_is_within_noise(
    tmp_path: Path, spread: list[float], passed: bool, verdict: str
) -> None:
    entry = goal(
        goal="warm worker",
        measured=sum(spread) / 2,
        baseline=None,
        ratio=None,
        target="<= 0.2 s",
        limit=0.2,
        compare="<=",
        spread=spread,
        **{"pass": passed},
    )
    write(tmp_path, "analysis", {"goals": [entry]})
    assert bench_report.main(["--bench-dir", str(tmp_path)]) == (0 if passed else 1)
    row = (tmp_path / "summary.md").read_text().splitlines()[2]
    assert row.endswith(f"| <= 0.2 s | {verdict} |")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["goals"][0]["verdict"] == verdict.strip("*")


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"spread": [0.3, 0.1]}, "low <= high"),
        ({"spread": [0.1]}, "expected [low, high]"),
        ({"compare": "<"}, "'compare' must be one of"),
    ],
)
def test_a_malformed_spread_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], patch: dict[str, object], message: str
) -> None:
    write(tmp_path, "broken", {"goals": [goal(limit=1.0, **patch)]})
    assert bench_report.main(["--bench-dir", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_every_file_given_gets_the_table_or_none_does(tmp_path: Path) -> None:
    write(tmp_path, "analysis", {"goals": [goal()]})
    readme, doc = tmp_path / "README.md", tmp_path / "performance.md"
    for path in (readme, doc):
        path.write_text("<!-- bench:start -->\nold\n<!-- bench:end -->\n")
    arguments = ["--bench-dir", str(tmp_path), "--readme", str(readme), "--readme", str(doc)]
    assert bench_report.main(arguments) == 0
    assert "| analysis |" in readme.read_text() and readme.read_text() == doc.read_text()

    doc.write_text("no markers\n")
    readme.write_text("<!-- bench:start -->\nold\n<!-- bench:end -->\n")
    assert bench_report.main(arguments) == 2
    assert "old" in readme.read_text()  # not written: the other file had no section
