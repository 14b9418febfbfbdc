"""The results page's pilot document (frontend/src/results/pilotAnalysis.json) is checked
by `make lint` (`scripts/pilot-analysis-fixture.py check`): the checked-in file passes, and
a copy that differs from the analysis by one number fails naming the fix."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "pilot_analysis_fixture", REPO / "scripts" / "pilot-analysis-fixture.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checked_in_pilot_document_is_current() -> None:
    assert _script().main(["check"]) == 0


def test_a_stale_pilot_document_fails_naming_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    stale = json.loads(script.TARGET.read_text(encoding="utf-8"))
    stale["meta"]["n_ratings"] += 1
    copy = tmp_path / "pilotAnalysis.json"
    copy.write_text(json.dumps(stale, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    monkeypatch.setattr(script, "TARGET", copy)
    monkeypatch.setattr(script, "ROOT", tmp_path)
    assert script.main(["check"]) == 1
    assert "pilot-analysis-fixture.py write" in capsys.readouterr().err
