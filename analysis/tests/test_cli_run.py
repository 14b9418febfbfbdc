"""The ``qoe-analysis`` process entry (``cli.run``): exit codes and output as ``main``'s,
ending with ``os._exit`` only after the output is flushed."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
RATINGS = SRC.parents[1] / "fixtures" / "synthetic" / "dissertation_shape" / "ratings.csv"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    code = f"import sys; sys.path.insert(0, {str(SRC)!r}); from qoe_analysis.cli import run; run()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300
    )


def test_analysis_output_is_complete_and_exit_zero(tmp_path: Path) -> None:
    done = _run("analyze", str(RATINGS), "--out", str(tmp_path / "out"), "--no-plots")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)  # the whole document reached the pipe before the exit
    assert doc["meta"]["n_ratings"] > 0
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


def test_document_is_kept_until_the_exit_by_run_only(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    from qoe_analysis import cli

    class Exited(Exception):
        pass

    def fake_exit(code: int) -> None:
        raise Exited(code)

    monkeypatch.setattr(cli, "_kept_until_exit", None)
    assert gc.isenabled()
    assert cli.main(["analyze", str(RATINGS)]) == 0  # a caller's process: nothing is kept
    assert cli._kept_until_exit is None
    assert gc.isenabled()  # nor is its garbage collector switched off
    printed = json.loads(capsysbinary.readouterr().out)

    monkeypatch.setattr(sys, "argv", ["qoe-analysis", "analyze", str(RATINGS)])
    monkeypatch.setattr(cli.os, "_exit", fake_exit)
    # the test process keeps its allocator and its environment
    monkeypatch.setattr(cli, "keep_freed_memory", lambda: False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    try:
        with pytest.raises(Exited) as exited:
            cli.run()
        collector_on = gc.isenabled()
    finally:
        gc.enable()
    assert exited.value.args == (0,)
    assert not collector_on  # the command's own process runs without the cycle collector
    assert json.loads(capsysbinary.readouterr().out) == printed
    kept = cli._kept_until_exit
    assert kept is not None and len(kept) == 1 and kept[0]["meta"] == printed["meta"]
