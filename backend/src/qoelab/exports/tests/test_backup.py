"""``manage.py export_study``: the per-study files of a backup, and that they load back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from qoe_analysis import load_ratings

from qoelab.exports.tests.test_exports import completed_session
from qoelab.studies.models import Study
from qoelab.studies.study_document import validate_study_document


@pytest.mark.django_db
def test_export_study_writes_its_files_that_load_back(
    example_study: Study, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    completed_session(example_study, "P001", 0)
    completed_session(example_study, "P002", 1)
    call_command("export_study", "--all", "--output-dir", str(tmp_path))

    folder = tmp_path / f"study-{example_study.pk}-{example_study.slug}"
    assert sorted(p.name for p in folder.iterdir()) == [
        "export.json",
        "items.json",
        "ratings.csv",
        "study.json",
        "sureal.json",
    ]
    design = validate_study_document(json.loads((folder / "study.json").read_text()))
    assert len(design["scenarios"]) == 10 and design["scenarios"][0]["code"] == "B"
    ratings = load_ratings(folder / "ratings.csv")
    assert len(ratings) == 20 and set(ratings["rater_id"].astype(str)) == {"P001", "P002"}
    assert json.loads((folder / "sureal.json").read_text())["item"] == "overall"
    assert json.loads((folder / "items.json").read_text())["items"] == example_study.rating_items
    assert "exported 1 study" in capsys.readouterr().out
    assert not list(folder.glob(".*.partial"))


@pytest.mark.django_db
def test_export_study_names_a_missing_study(example_study: Study, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no study with id 999"):
        call_command(
            "export_study",
            "--study",
            str(example_study.pk),
            "--study",
            "999",
            "--output-dir",
            str(tmp_path),
        )
    assert not any(tmp_path.iterdir())
