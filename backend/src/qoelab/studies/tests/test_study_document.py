"""Loading and exporting study documents, with the example study of table 4.1."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from qoelab.studies.models import Game, Scenario, Study
from qoelab.studies.study_document import (
    StudyDocumentError,
    export_study_document,
    load_study_document,
    read_study_document,
)

EXAMPLE = settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json"

# Table 4.1 of the dissertation: code → (upstream delay, upstream loss, downstream delay,
# downstream loss); "both" directions carry the same values, A1 is client→server only,
# A2 server→client only.
TABLE_4_1 = {
    "B": (0, 0.0, 0, 0.0),
    "D1": (80, 0.0, 80, 0.0),
    "D2": (200, 0.0, 200, 0.0),
    "D3": (300, 0.0, 300, 0.0),
    "L1": (0, 0.3, 0, 0.3),
    "L2": (0, 1.0, 0, 1.0),
    "M1": (40, 1.5, 40, 1.5),
    "M2": (180, 0.3, 180, 0.3),
    "A1": (120, 1.0, 0, 0.0),
    "A2": (0, 0.0, 120, 1.0),
}


def example_document() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


@pytest.mark.django_db
def test_example_study_holds_table_4_1_and_three_pace_classes(example_study: Study) -> None:
    scenarios = list(example_study.scenarios.all())
    assert [s.code for s in scenarios] == list(TABLE_4_1)
    for scenario in scenarios:
        assert (
            scenario.us_delay_ms,
            scenario.us_loss_pct,
            scenario.ds_delay_ms,
            scenario.ds_loss_pct,
        ) == TABLE_4_1[scenario.code], scenario.code
    assert [s.code for s in scenarios if s.is_baseline] == ["B"]
    assert sorted(example_study.games.values_list("pace", flat=True)) == [
        "fast",
        "medium",
        "slow",
    ]


@pytest.mark.django_db
def test_loading_twice_is_a_no_op(example_study: Study) -> None:
    result = load_study_document(example_document())
    assert (result.created, result.changed) == (False, False)
    assert result.study.pk == example_study.pk
    assert Scenario.objects.count() == 10 and Game.objects.count() == 3


@pytest.mark.django_db
def test_reloading_a_changed_document_syncs_scenarios(example_study: Study) -> None:
    document = example_document()
    document["scenarios"] = [s for s in document["scenarios"] if s["code"] != "D3"]
    document["scenarios"][1]["downstream"]["jitter_ms"] = 5.0
    result = load_study_document(document)
    assert result.changed
    assert not Scenario.objects.filter(code="D3").exists()
    assert Scenario.objects.get(code="D1").ds_jitter_ms == 5.0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d["scenarios"][1]["upstream"].update(loss_pct=150),
            "scenarios[1].upstream.loss_pct",
        ),
        (
            lambda d: d["scenarios"][2]["downstream"].update(delay_ms=-1),
            "scenarios[2].downstream.delay_ms",
        ),
        (lambda d: d["scenarios"][0]["upstream"].update(bandwidth=3), "Unknown field(s) bandwidth"),
        (
            lambda d: d["scenarios"][3].update(is_baseline=True),
            "exactly one scenario must be the baseline",
        ),
        (lambda d: d["scenarios"][4].update(code="D1"), "duplicate scenario code 'D1'"),
        (lambda d: d["scenarios"][4].update(code="d-1"), "scenarios[4].code"),
        (lambda d: d["games"][0].update(pace="frantic"), "games[0].pace"),
        (lambda d: d.update(format="other/v9"), "format"),
    ],
)
def test_invalid_documents_are_rejected_and_write_nothing(mutate: Any, message: str) -> None:
    document = copy.deepcopy(example_document())
    mutate(document)
    with pytest.raises(StudyDocumentError, match=re.escape(message)):
        load_study_document(document)
    assert Study.objects.count() == 0 and Scenario.objects.count() == 0


@pytest.mark.django_db
def test_export_round_trips_the_example(example_study: Study) -> None:
    exported = export_study_document(example_study)
    # The example has no "language": exported, the study's default (English) is named.
    assert "language" not in read_study_document(EXAMPLE)
    # The file itself, not its validated form: delay/jitter/loss-only scenarios export
    # exactly as written (the other agent fields appear only where they are not neutral).
    assert exported == json.loads(EXAMPLE.read_text(encoding="utf-8")) | {"language": "en"}
    assert load_study_document(exported).changed is False
    assert {g["name"] for g in exported["games"]} == {
        g["name"] for g in example_document()["games"]
    }


@pytest.mark.django_db
def test_rehearsal_travels_with_the_document(example_study: Study) -> None:
    """Issue 13: a rehearsal (dry-run agents allowed in production) is exported and
    loaded; a document without the key leaves the study as it is."""
    document = example_document()
    assert load_study_document({**document, "rehearsal": True}).study.rehearsal is True
    exported = export_study_document(Study.objects.get(pk=example_study.pk))
    assert exported["rehearsal"] is True
    assert load_study_document(document).study.rehearsal is True  # key absent: unchanged
    assert load_study_document({**document, "rehearsal": False}).study.rehearsal is False
    assert "rehearsal" not in export_study_document(Study.objects.get(pk=example_study.pk))
    fresh = load_study_document({**document, "slug": "rehearsal-2", "rehearsal": True})
    assert fresh.created and fresh.study.rehearsal is True


def test_unreadable_files_name_the_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "qoelab.study/v1",\n "slug": }', encoding="utf-8")
    with pytest.raises(StudyDocumentError, match=r"broken.json: not valid JSON \(line 2"):
        read_study_document(broken)
    with pytest.raises(StudyDocumentError, match="no such file"):
        read_study_document(tmp_path / "missing.json")


@pytest.mark.django_db
def test_load_study_command_reports_what_it_did(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("load_study", str(EXAMPLE))
    call_command("load_study", str(EXAMPLE))
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "Study 'cloud-gaming-2014' created: 3 games, 10 scenarios.",
        "Study 'cloud-gaming-2014' unchanged: 3 games, 10 scenarios.",
    ]
    with pytest.raises(CommandError, match="no such file"):
        call_command("load_study", "/nonexistent/study.json")
