"""The reliable-raters options of an analysis request (issue 31, item 2): validated at the
API, part of the cache key only where they act (with ``reliable_only``), passed to
``qoe_analysis.analyze``; a refusal reaches the client as a failed job with its message."""

from __future__ import annotations

import inspect
import io
from typing import Any
from unittest import mock

import pytest
from rest_framework.test import APIClient

from qoelab.analysis_jobs.models import (
    DEFAULT_MIN_RELIABLE_RATERS,
    DEFAULT_MIN_RELIABLE_SHARE,
    AnalysisJob,
    JobState,
)
from qoelab.analysis_jobs.tasks import run_analysis
from qoelab.analysis_jobs.tests.test_results_cache import analyse, finish
from qoelab.exports.tests.test_exports import completed_session
from qoelab.studies.models import Study


@pytest.fixture
def rated_study(owned_example_study: Study) -> Study:
    for index, code in enumerate(("P1", "P2", "P3", "P4")):
        completed_session(owned_example_study, code, index % 3)
    return owned_example_study


def test_the_defaults_are_the_analysis_defaults() -> None:
    from qoe_analysis.report import analyze

    parameters = inspect.signature(analyze).parameters
    assert parameters["min_reliable_raters"].default == DEFAULT_MIN_RELIABLE_RATERS
    assert parameters["min_reliable_share"].default == DEFAULT_MIN_RELIABLE_SHARE


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"min_reliable_raters": 0}, "min_reliable_raters"),
        ({"min_reliable_raters": "many"}, "min_reliable_raters"),
        ({"min_reliable_share": 1.5}, "min_reliable_share"),
        ({"min_reliable_share": -0.1}, "min_reliable_share"),
    ],
)
def test_thresholds_out_of_range_are_400_naming_the_field(
    researcher_client: APIClient, rated_study: Study, body: dict[str, Any], field: str
) -> None:
    response = researcher_client.post(
        f"/api/v1/studies/{rated_study.pk}/analysis/",
        {"reliable_only": True, **body},
        format="json",
    )
    assert response.status_code == 400
    assert field in response.json()
    assert not AnalysisJob.objects.exists()


@pytest.mark.django_db
def test_the_thresholds_split_the_cache_only_with_reliable_only(
    researcher_client: APIClient, rated_study: Study
) -> None:
    _status, plain = analyse(researcher_client, rated_study)
    assert (plain["min_reliable_raters"], plain["min_reliable_share"]) == (3, 0.5)
    # Without reliable_only the thresholds change nothing: the same job, stored as defaults.
    status, same = analyse(researcher_client, rated_study, min_reliable_raters=7)
    assert status == 200 and same["id"] == plain["id"]
    _status, reliable = analyse(researcher_client, rated_study, reliable_only=True)
    status, stricter = analyse(
        researcher_client,
        rated_study,
        reliable_only=True,
        min_reliable_raters=2,
        min_reliable_share=0.75,
    )
    assert status == 202 and stricter["id"] not in {plain["id"], reliable["id"]}
    job = AnalysisJob.objects.get(pk=stricter["id"])
    assert (job.reliable_only, job.min_reliable_raters, job.min_reliable_share) == (True, 2, 0.75)
    status, again = analyse(
        researcher_client,
        rated_study,
        reliable_only=True,
        min_reliable_raters=2,
        min_reliable_share=0.75,
    )
    assert status == 200 and again["id"] == stricter["id"]


@pytest.mark.django_db
def test_the_options_reach_the_analysis(researcher_client: APIClient, rated_study: Study) -> None:
    from qoe_analysis.report import analyze

    _status, created = analyse(
        researcher_client, rated_study, reliable_only=True, min_reliable_raters=1
    )
    with mock.patch("qoe_analysis.analyze", wraps=analyze) as spy:
        run_analysis.apply(args=(created["id"],)).get()
    assert spy.call_count == 1
    options = spy.call_args.kwargs
    assert options["reliable_only"] is True
    assert (options["min_reliable_raters"], options["min_reliable_share"]) == (1, 0.5)


@pytest.mark.django_db
def test_too_few_reliable_raters_fail_the_job_with_the_analysis_message(
    researcher_client: APIClient, rated_study: Study
) -> None:
    from qoe_analysis import load_ratings
    from qoe_analysis.report import NoReliableRatersError, analyze
    from qoe_analysis.scales import parse_sidecar

    # The plain analysis first: the refused job's input is the same table.
    _status, plain = analyse(researcher_client, rated_study)
    plain_job = finish(plain["id"])
    _status, created = analyse(
        researcher_client, rated_study, reliable_only=True, min_reliable_raters=1000
    )
    run_analysis.apply(args=(created["id"],)).get()
    polled = researcher_client.get(f"/api/v1/analysis-jobs/{created['id']}/").json()
    assert polled["state"] == JobState.FAILED and polled["result"] is None
    sidecar = parse_sidecar(plain_job.input_items) if plain_job.input_items else None
    table = load_ratings(io.StringIO(plain_job.input_csv), sidecar=sidecar)
    with pytest.raises(NoReliableRatersError) as refusal:
        analyze(table, reliable_only=True, min_reliable_raters=1000, seed=0, sidecar=sidecar)
    assert polled["error"] == str(refusal.value)
    assert "1000" in polled["error"]  # the message states what is needed
    # A failed job is not the cache: asking again analyses again (and refuses again).
    status, again = analyse(
        researcher_client, rated_study, reliable_only=True, min_reliable_raters=1000
    )
    assert status == 202 and again["id"] != created["id"]
