"""A policy learnt mostly from dry-run ratings needs ``allow_dry_run`` (issue 31, item 5).

The analysis is the dissertation-shaped synthetic study's, with its ratings marked as taken
on a dry-run agent (unimpaired play): the policy endpoint then refuses with 400, code
``dry_run`` and the analysis package's reason, in every format, and serves it with
``allow_dry_run=true``, its provenance stating the dry-run share.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.analysis_jobs.models import AnalysisJob
from qoelab.policies.tests.test_policy_endpoint import (  # noqa: F401 (fixtures)
    analysed_csv,
    finished_job,
    owned_study,
    policy_url,
)
from qoelab.studies.models import Study


def mark_dry_run(job: AnalysisJob, share: float) -> None:
    """Mark ``share`` of the job's analysed ratings as taken on a dry-run agent."""
    result: dict[str, Any] = dict(job.result or {})
    meta = dict(result["meta"])
    meta["n_ratings_dry_run"] = round(share * meta["n_ratings"])
    result["meta"] = meta
    job.result = result
    job.save(update_fields=["result"])


@pytest.mark.django_db
@pytest.mark.parametrize("export_format", ["", "faucet", "ietf"])
def test_a_mostly_dry_run_policy_is_refused_unless_allowed(
    researcher_client: APIClient,
    example_study: Study,
    finished_job: AnalysisJob,  # noqa: F811
    export_format: str,
) -> None:
    mark_dry_run(finished_job, 1.0)
    refused = researcher_client.get(policy_url(example_study, export_format))
    assert refused.status_code == 400
    body = refused.json()
    assert body["code"] == "dry_run"
    assert "dry-run" in body["detail"] and "allow_dry_run=true" in body["detail"]
    allowed = researcher_client.get(policy_url(example_study, export_format, allow_dry_run="true"))
    assert allowed.status_code == 200, allowed.content
    if not export_format:
        provenance = json.loads(allowed.content)["provenance"]
        assert provenance["dry_run_share"] == pytest.approx(1.0)


@pytest.mark.django_db
def test_a_minority_of_dry_run_ratings_needs_no_option(
    researcher_client: APIClient,
    example_study: Study,
    finished_job: AnalysisJob,  # noqa: F811
) -> None:
    mark_dry_run(finished_job, 0.4)
    response = researcher_client.get(policy_url(example_study))
    assert response.status_code == 200, response.content
    assert json.loads(response.content)["provenance"]["dry_run_share"] == pytest.approx(
        0.4, abs=0.01
    )


@pytest.mark.django_db
def test_another_refusal_is_not_called_a_dry_run_one(
    researcher_client: APIClient,
    example_study: Study,
    finished_job: AnalysisJob,  # noqa: F811
) -> None:
    """An analysis no policy can come from stays a plain 400, allowed or not."""
    mark_dry_run(finished_job, 1.0)
    result = dict(finished_job.result or {})
    del result["thresholds"]
    finished_job.result = result
    finished_job.save(update_fields=["result"])
    for params in ({}, {"allow_dry_run": "true"}):
        response = researcher_client.get(policy_url(example_study, **params))
        assert response.status_code == 400
        assert "code" not in response.json(), response.json()
