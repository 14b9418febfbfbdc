"""GET /api/v1/studies/{id}/policy/: the policy built from a real analysis of a study."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
import yaml
from django.conf import settings
from qoe_analysis.policy import validate_policy
from rest_framework.test import APIClient

from qoelab.analysis_jobs.models import AnalysisJob, JobState
from qoelab.analysis_jobs.tasks import run_analysis
from qoelab.studies.models import Study

RATINGS = settings.FIXTURES_DIR / "synthetic" / "dissertation_shape" / "ratings.csv"


@pytest.fixture(scope="module")
def analysed_csv() -> str:
    return RATINGS.read_text(encoding="utf-8")


@pytest.fixture
def owned_study(example_study: Study, researcher: Any) -> Study:
    example_study.owner = researcher
    example_study.save(update_fields=["owner"])
    return example_study


@pytest.fixture
def finished_job(owned_study: Study, analysed_csv: str) -> AnalysisJob:
    """A job over the dissertation-shaped synthetic study, run by the real task in-process."""
    job = AnalysisJob.objects.create(
        study=owned_study,
        study_version=owned_study.version,
        input_sha256="1" * 64,
        input_csv=analysed_csv,
        input_rows=analysed_csv.count("\n") - 1,
    )
    run_analysis.apply(args=(job.pk,)).get()
    job.refresh_from_db()
    assert job.state == JobState.SUCCEEDED, job.error
    return job


def policy_url(study: Study, export_format: str = "", **params: Any) -> str:
    query = "&".join(f"{key}={value}" for key, value in params.items())
    path = f"/api/v1/studies/{study.pk}/policy/" + (f"{export_format}/" if export_format else "")
    return path + (f"?{query}" if query else "")


@pytest.mark.django_db
def test_without_a_finished_analysis_the_answer_says_what_to_do(
    researcher_client: APIClient, owned_study: Study
) -> None:
    example_study = owned_study
    response = researcher_client.get(policy_url(example_study))
    assert response.status_code == 409
    assert f"POST /api/v1/studies/{example_study.pk}/analysis/" in response.json()["detail"]


@pytest.mark.django_db
def test_the_policy_document_validates_and_names_its_provenance(
    researcher_client: APIClient, example_study: Study, finished_job: AnalysisJob
) -> None:
    response = researcher_client.get(policy_url(example_study))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    policy = json.loads(response.content)
    validate_policy(policy)
    provenance = json.dumps(policy, ensure_ascii=False)
    assert f"analysis job {finished_job.pk}" in provenance
    assert example_study.title in provenance
    again = json.loads(researcher_client.get(policy_url(example_study, "json")).content)
    # generated_at has one-second resolution: two requests may straddle a second.
    again["provenance"]["generated_at"] = policy["provenance"]["generated_at"]
    assert again == policy


@pytest.mark.django_db
def test_faucet_export_matches_the_given_game_server(
    researcher_client: APIClient, example_study: Study, finished_job: AnalysisJob
) -> None:
    response = researcher_client.get(
        policy_url(example_study, "faucet", server_ip="198.51.100.7", server_port=5004)
    )
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/yaml"
    assert ".yaml" in response["Content-Disposition"]
    config = yaml.safe_load(response.content)
    assert "198.51.100.7" in json.dumps(config["acls"])
    assert "192.0.2.10" not in response.content.decode()  # no placeholder once a flow is given


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"server_port": "5004"}, "server_ip"),
        ({"server_ip": "not-an-ip"}, "server_ip"),
        ({"rate_kbps": "0"}, "rate_kbps"),
    ],
)
def test_bad_parameters_are_400_naming_the_field(
    researcher_client: APIClient,
    example_study: Study,
    finished_job: AnalysisJob,
    params: dict[str, str],
    field: str,
) -> None:
    response = researcher_client.get(policy_url(example_study, **params))
    assert response.status_code == 400
    assert field in response.json()


@pytest.mark.django_db
def test_an_unknown_format_is_404_listing_the_formats(
    researcher_client: APIClient, example_study: Study, finished_job: AnalysisJob
) -> None:
    response = researcher_client.get(policy_url(example_study, "cisco"))
    assert response.status_code == 404
    assert "faucet" in response.json()["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("export_format", ["ovs", "onos", "rest_qos", "ietf"])
def test_every_controller_format_is_served(
    researcher_client: APIClient,
    example_study: Study,
    finished_job: AnalysisJob,
    export_format: str,
) -> None:
    response = researcher_client.get(
        policy_url(example_study, export_format, server_ip="198.51.100.7")
    )
    assert response.status_code == 200, response.content
    assert b"198.51.100.7" in response.content


@pytest.mark.django_db
def test_reliable_only_needs_its_own_analysis(
    researcher_client: APIClient, example_study: Study, finished_job: AnalysisJob
) -> None:
    response = researcher_client.get(policy_url(example_study, reliable_only="true"))
    assert response.status_code == 409
    assert "reliable raters" in response.json()["detail"]


def test_the_endpoint_offers_exactly_the_exporters_formats() -> None:
    from qoe_analysis.policy import FORMATS as EXPORTER_FORMATS

    from qoelab.policies.services import FORMATS

    assert FORMATS == EXPORTER_FORMATS


def test_loading_the_url_map_does_not_import_pandas() -> None:
    script = "import django, sys; django.setup(); import qoelab.urls;print('pandas' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "qoelab.settings"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == "False"


@pytest.mark.django_db
def test_the_policy_is_for_researchers_only(example_study: Study) -> None:
    response = APIClient().get(policy_url(example_study))
    assert response.status_code in {401, 403}
