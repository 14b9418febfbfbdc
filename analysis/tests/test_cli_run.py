"""The ``qoe-analysis`` process (``cli.run``): exit codes and output as ``main``'s; a reader
that leaves early (``| head``) ends it quietly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from qoe_analysis.cli import EXIT_READER_LEFT, main

SRC = Path(__file__).resolve().parents[1] / "src"
RATINGS = SRC.parents[1] / "fixtures" / "synthetic" / "dissertation_shape" / "ratings.csv"
COMMAND = [
    sys.executable,
    "-c",
    f"import sys; sys.path.insert(0, {str(SRC)!r}); from qoe_analysis.cli import run; run()",
]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=300)


def test_analysis_output_is_complete_and_exit_zero(tmp_path: Path) -> None:
    done = _run("analyze", str(RATINGS), "--out", str(tmp_path / "out"), "--no-plots")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)  # the whole document reached the pipe before the exit
    assert doc["meta"]["n_ratings"] > 0
    # stderr: one line per warning of the document, nothing else
    lines = done.stderr.splitlines()
    assert len(lines) == len(doc["warnings"]) and all(x.startswith("warning: [") for x in lines)
    # the file written under --out is complete too (closed before the process ended)
    assert json.loads((tmp_path / "out" / "analysis.json").read_text()) == doc
    assert (tmp_path / "out" / "tree_rules.txt").read_text().endswith("\n")


def test_exit_codes_of_errors_version_and_usage() -> None:
    missing = _run("analyze", "/nonexistent/ratings.csv")
    assert missing.returncode == 2 and "No such file" in missing.stderr
    version = _run("--version")
    assert version.returncode == 0 and version.stdout.startswith("qoe-analysis ")
    usage = _run("no-such-command")
    assert usage.returncode == 2 and "invalid choice" in usage.stderr


@pytest.mark.parametrize("indent", [[], ["--indent", "2"]])
def test_a_reader_that_leaves_after_the_first_line_ends_it_quietly(indent: list[str]) -> None:
    """``analyze … | head -1``: the document is larger than a pipe holds, so the command
    writes on after the reader has gone; it exits 0 or 1 with nothing on stderr."""
    with subprocess.Popen(
        [*COMMAND, "analyze", str(RATINGS), *indent],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.read(100) if not indent else process.stdout.readline()
        process.stdout.close()
        err = process.stderr.read()
        code = process.wait(timeout=300)
    assert first.startswith(b"{")
    assert code in (0, 1) and err == b""


class _ClosedPipe:
    """A stdout whose reader has left: every write raises ``BrokenPipeError``."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        pass


def test_main_returns_the_reader_left_code_without_a_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["analyze", str(RATINGS)]) == EXIT_READER_LEFT == 1
    assert capsys.readouterr().err == ""
