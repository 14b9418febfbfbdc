"""A QoE dataset with its descriptor, imported through the API into a new analysis-only
study (issue 32, item 4): the P.809-like fixture (three files, a 0-6 scale, gaps, extra
post-play columns, repeated conditions) without any conversion code."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from qoelab.analysis_jobs.tasks import run_analysis
from qoelab.datasets.models import DatasetJob, StudyDataset
from qoelab.datasets.tests.helpers import P809, descriptor, imported_job, p809_files, post_import
from qoelab.participants.models import Participant
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.studies.models import Scenario, Study

pytestmark = pytest.mark.django_db


@pytest.fixture
def p809_job(researcher_client: APIClient) -> dict[str, Any]:
    job = imported_job(researcher_client, descriptor())
    assert job["state"] == "succeeded", job
    return job


def test_the_p809_dataset_becomes_an_analysis_only_study(
    researcher_client: APIClient, p809_job: dict[str, Any], data_dir: Any
) -> None:
    job = p809_job
    assert job["kind"] == "dataset" and job["progress"] == 1.0 and job["problems"] == []
    assert job["rows_total"] == job["rows_done"] == 1823
    assert (job["sessions"], job["ratings"], job["participants_created"]) == (172, 1797, 42)
    study = Study.objects.get(pk=job["study"])
    assert study.analysis_only and study.owner is not None and study.owner.username == "alice"
    assert study.title == "P.809-like randomised cloud-gaming dataset (synthetic)"
    assert [i["key"] for i in study.rating_items] == ["quality"]
    assert study.rating_items[0]["scale"]["min"] == 0 and study.rating_items[0]["scale"]["max"] == 6
    assert study.acceptance == {"item": "quality", "min": 4}
    assert dict(study.games.values_list("name", "pace")) == {"Racing": "fast", "Puzzle": "slow"}
    # one scenario per condition rated (the loader's generated codes), every one rated
    assert Scenario.objects.filter(study=study).count() == job["scenarios"] == 1551
    assert not Scenario.objects.filter(study=study, ratings__isnull=True).exists()
    first = Scenario.objects.get(study=study, code="C0001")
    assert (first.ds_loss_pct, first.us_loss_pct, first.ds_delay_ms) == (2.0, 0.5, 0.0)
    # three "Player 1"s stay three raters
    codes = set(Participant.objects.filter(study=study).values_list("code", flat=True))
    assert {"wired-a.Player_1", "wired-b.Player_1", "mobile.Player_1"} <= codes
    sessions = Session.objects.filter(study=study)
    assert sessions.count() == 172 and not sessions.exclude(state="completed").exists()
    assert Rating.objects.filter(session__study=study).count() == 1797
    # a derived session begins where a player got a condition again: same player and game
    again = sessions.values("participant", "game").distinct().count()
    assert again < 172
    keys = [q["key"] for q in study.questionnaire]
    assert keys == ["testbed", "Age", "Gaming hours"]
    assert Answer.objects.filter(session__study=study).count() == 3 * 172
    assert set(study.questionnaire[0]["choices"]) == {"wired-a", "wired-b", "mobile"}
    assert list(data_dir.iterdir()) == []  # the stored files are gone
    detail = researcher_client.get(f"/api/v1/studies/{study.pk}/").json()
    assert detail["analysis_only"] is True


def test_the_job_names_the_undeclared_columns_and_counts_the_gaps(
    p809_job: dict[str, Any],
) -> None:
    warnings = {w["code"]: w["message"] for w in p809_job["warnings"]}
    assert list(warnings) == [
        "undeclared_columns",
        "missing_values",
        "derived_sessions",
        "generated_scenarios",
    ]
    assert "Round, Comment" in warnings["undeclared_columns"]
    assert "QoE 26 (ratings dropped)" in warnings["missing_values"]
    summary = p809_job["summary"]
    assert summary["undeclared_columns"] == ["Round", "Comment"]
    assert summary["n_sessions"] == 172 and summary["sessions_from_repeats"] == 88
    stored = StudyDataset.objects.get(study_id=p809_job["study"])
    assert stored.summary == summary and stored.warnings == p809_job["warnings"]


def _analysis(client: APIClient, study_id: int) -> dict[str, Any]:
    started = client.post(f"/api/v1/studies/{study_id}/analysis/", {}, format="json")
    assert started.status_code in (200, 202), started.content
    run_analysis.apply(args=(started.json()["id"],)).get()  # what on_commit would queue
    job = client.get(f"/api/v1/analysis-jobs/{started.json()['id']}/").json()
    assert job["state"] == "succeeded", job.get("error")
    result: dict[str, Any] = job["result"]
    return result


def test_its_analysis_is_the_cli_analysis_of_the_same_dataset(
    researcher_client: APIClient, p809_job: dict[str, Any]
) -> None:
    """The results of the imported study: the conditions, the marginals and how the data
    was read, as `qoe-analysis analyze --dataset` gives them."""
    from qoe_analysis.dataset import load_dataset_file
    from qoe_analysis.report import analyze

    document = _analysis(researcher_client, p809_job["study"])
    dataset = load_dataset_file(P809 / "descriptor.json")
    cli = analyze(dataset.ratings, dataset=dataset)
    assert document["marginals"]["factors"], document["marginals"]
    assert document["meta"]["dataset"] == p809_job["summary"]
    codes = [w["code"] for w in document["warnings"]]
    assert codes[:4] == [w["code"] for w in p809_job["warnings"]]

    def conditions(doc: dict[str, Any]) -> dict[tuple[str, str], tuple[int, float]]:
        return {(c["scenario"], c["game"]): (c["n"], c["mos"]) for c in doc["conditions"]}

    assert conditions(document) == conditions(cli)
    assert document["meta"]["n_raters"] == cli["meta"]["n_raters"] == 42
    assert sorted(document["meta"]["factors"]) == sorted(cli["meta"]["factors"])


def test_the_same_submission_again_answers_with_its_job(
    researcher_client: APIClient, p809_job: dict[str, Any]
) -> None:
    again = post_import(researcher_client, descriptor(), p809_files())
    assert again.status_code == 200, again.content
    assert again.json()["job"]["id"] == p809_job["id"]
    assert Study.objects.filter(analysis_only=True).count() == 1
    # without its study (gone), the same files make a new one
    DatasetJob.objects.filter(pk=p809_job["id"]).update(study=None)
    assert post_import(researcher_client, descriptor(), p809_files()).status_code == 202
    assert Study.objects.filter(analysis_only=True).count() == 2


def test_a_job_is_its_submitters_and_its_studys_people(
    researcher_client: APIClient, p809_job: dict[str, Any]
) -> None:
    bob = get_user_model().objects.create_user("bob", password="bob-password-1")
    other = APIClient()
    other.force_authenticate(bob)
    assert other.get(f"/api/v1/dataset-jobs/{p809_job['id']}/").status_code == 404
    Study.objects.get(pk=p809_job["study"]).members.add(bob)
    assert other.get(f"/api/v1/dataset-jobs/{p809_job['id']}/").status_code == 200
    assert APIClient().get(f"/api/v1/dataset-jobs/{p809_job['id']}/").status_code in (401, 403)
