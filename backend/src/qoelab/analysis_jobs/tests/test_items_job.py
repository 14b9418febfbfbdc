"""An analysis job analyses the study's rating items: the sidecar goes with the CSV."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from qoelab.analysis_jobs.models import AnalysisJob, JobState
from qoelab.analysis_jobs.services import request_analysis
from qoelab.analysis_jobs.tasks import run_analysis
from qoelab.exports.tests.test_exports import completed_session
from qoelab.ratings.models import Rating
from qoelab.studies.models import Study
from qoelab.studies.rating_items import GAMING_PRESET
from qoelab.studies.serializers import StudyDetailSerializer


@pytest.mark.django_db
def test_the_job_carries_the_sidecar_and_analyses_every_item(example_study: Study) -> None:
    example_study.rating_items = GAMING_PRESET
    example_study.acceptance = {"item": "acceptance"}
    example_study.min_response_ms = 900
    example_study.save()
    for index, code in enumerate(("P1", "P2", "P3", "P4")):
        completed_session(example_study, code, index % 3)
    for rating in Rating.objects.all():
        overall = rating.values["overall"]
        rating.values = {
            "overall": overall,
            "input_quality": 1 + 1.5 * (overall - 1),
            "video_quality": 7 - (rating.order_index % 4) / 2,
            "acceptance": int(overall >= 3),
        }
        rating.response_ms = 600 + 100 * rating.order_index
        rating.save()
    request = request_analysis(example_study, reliable_only=False)
    run_analysis.apply(args=(request.job.pk,)).get()  # the task builds the input
    job = AnalysisJob.objects.get(pk=request.job.pk)
    assert job.state == JobState.SUCCEEDED, job.error
    assert job.input_items == {
        "items": GAMING_PRESET,
        "acceptance": {"item": "acceptance"},
        "min_response_ms": 900,
    }
    table = pd.read_csv(io.StringIO(job.input_csv))
    assert job.input_rows == len(table) == 4 * 10 * 4
    assert job.result is not None
    assert set(job.result["per_item"]) == {i["key"] for i in GAMING_PRESET}
    # The acceptance rule changes the analysis: a new job, not the cached one.
    serializer = StudyDetailSerializer(
        example_study, data={"acceptance": {"item": "overall", "min": 4}}, partial=True
    )
    serializer.is_valid(raise_exception=True)
    serializer.save()  # as PATCH /studies/{id}/ does: bumps the data version
    again = request_analysis(example_study, reliable_only=False)
    assert not again.cached and again.job.pk != job.pk
    assert AnalysisJob.objects.count() == 2
