"""The results cache (issue 16, goal 2): the analysis document is found by the study's
version and data version, without building the ratings table; every write path that
changes the analysed data bumps the data version (the study's counter or, for a rating
and a completed session, the session's)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from qoelab.analysis_jobs import services
from qoelab.analysis_jobs.job_response import _stored_result_text
from qoelab.analysis_jobs.models import AnalysisJob, JobState
from qoelab.analysis_jobs.serializers import AnalysisJobSerializer
from qoelab.analysis_jobs.services import request_analysis
from qoelab.analysis_jobs.tasks import run_analysis
from qoelab.exports import tidy
from qoelab.exports.importer import import_ratings
from qoelab.exports.sample_ratings import sample_lines
from qoelab.exports.tests.test_exports import completed_session
from qoelab.participants.models import Participant
from qoelab.runs.models import Session
from qoelab.runs.services.transitions import bump_session_data_version
from qoelab.runs.tests.lab import answer_post_questions
from qoelab.studies.data_version import bump_data_version
from qoelab.studies.models import Study
from qoelab.studies.study_document import export_study_document, load_study_document


def data_version(study: Study) -> int:
    """The data version of the cache key (the study's counter plus its sessions')."""
    return services.data_version_of(study.pk)[1]


def study_row_counter(study: Study) -> int:
    value: int = Study.objects.values_list("data_version", flat=True).get(pk=study.pk)
    return value


def analyse(client: APIClient, study: Study, **body: Any) -> tuple[int, dict[str, Any]]:
    response = client.post(f"/api/v1/studies/{study.pk}/analysis/", body, format="json")
    assert response.status_code in (200, 202), response.content
    return response.status_code, response.json()


def finish(job_id: int) -> AnalysisJob:
    """Run the job's task in-process (what ``on_commit`` would queue) and return it."""
    run_analysis.apply(args=(job_id,)).get()
    job = AnalysisJob.objects.get(pk=job_id)
    assert job.state == JobState.SUCCEEDED, job.error
    return job


def import_sample(study: Study, rows: int, prefix: str) -> None:
    """Import ``rows`` synthetic ratings, as the import job does (its study read afresh:
    the design check compares with the stored design, e.g. PostgreSQL's JSON key order)."""
    fresh = Study.objects.get(pk=study.pk)
    import_ratings(fresh, sample_lines(fresh, rows, prefix), prefix.ljust(64, "0"))


@pytest.fixture
def rated_study(owned_example_study: Study) -> Study:
    for index, code in enumerate(("P1", "P2", "P3", "P4")):
        completed_session(owned_example_study, code, index % 3)
    return owned_example_study


@pytest.fixture
def tidy_spy() -> Any:
    """Counts the builds of the ratings table (the work a cached request must not do)."""
    with mock.patch.object(tidy, "tidy_table", wraps=tidy.tidy_table) as spy:
        yield spy


# --- the cache -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_cached_request_answers_the_job_without_building_the_table(
    researcher_client: APIClient, rated_study: Study, tidy_spy: Any
) -> None:
    status, created = analyse(researcher_client, rated_study)
    assert status == 202 and created["state"] == JobState.QUEUED
    assert created["data_version"] == data_version(rated_study)
    assert tidy_spy.call_count == 0  # the request only created the job
    unbuilt = researcher_client.get(f"/api/v1/analysis-jobs/{created['id']}/input-csv/")
    assert unbuilt.status_code == 404
    job = finish(created["id"])
    assert tidy_spy.call_count == 1 and job.input_rows == 4 * 10 and job.input_sha256

    tidy_spy.reset_mock()
    status, cached = analyse(researcher_client, rated_study)
    assert status == 200 and cached["id"] == job.pk
    assert tidy_spy.call_count == 0
    # The result passed through as stored text is the same document as the serializer's.
    assert cached == AnalysisJobSerializer(AnalysisJob.objects.get(pk=job.pk)).data
    assert cached["result"] == job.result
    polled = researcher_client.get(f"/api/v1/analysis-jobs/{job.pk}/").json()
    assert polled == cached
    # Sent again from the process' copy of the result text, the same document.
    hits = _stored_result_text.cache_info().hits
    _status, again = analyse(researcher_client, rated_study)
    assert again == cached and _stored_result_text.cache_info().hits == hits + 1
    # The page's ratings table: the job's stored input, the same as the study's export.
    table = researcher_client.get(f"/api/v1/analysis-jobs/{job.pk}/input-csv/")
    assert table.status_code == 200 and table["ETag"] == f'"{job.input_sha256}"'
    assert table.content.decode() == job.input_csv == tidy.tidy_csv(rated_study)
    assert tidy_spy.call_count == 1  # that comparison's own build


@pytest.mark.django_db
def test_a_new_rating_makes_the_next_request_compute_a_new_document(
    researcher_client: APIClient, rated_study: Study, tidy_spy: Any
) -> None:
    _status, first = analyse(researcher_client, rated_study)
    first_job = finish(first["id"])
    import_sample(rated_study, 10, "N")  # a new session's ratings, through the importer
    status, second = analyse(researcher_client, rated_study)
    assert status == 202 and second["id"] != first_job.pk
    second_job = finish(second["id"])
    assert second_job.input_rows == first_job.input_rows + 10
    assert second_job.input_sha256 != first_job.input_sha256
    assert second_job.result != first_job.result
    assert second_job.data_version == first_job.data_version + 1  # type: ignore[operator]


@pytest.mark.django_db
def test_the_options_and_the_design_version_are_part_of_the_key(
    researcher_client: APIClient, rated_study: Study
) -> None:
    _status, all_raters = analyse(researcher_client, rated_study)
    status, reliable = analyse(researcher_client, rated_study, reliable_only=True)
    assert status == 202 and reliable["id"] != all_raters["id"]
    Study.objects.filter(pk=rated_study.pk).update(version=rated_study.version + 1)
    status, new_version = analyse(researcher_client, rated_study)
    assert status == 202 and new_version["id"] not in {all_raters["id"], reliable["id"]}
    assert new_version["study_version"] == rated_study.version + 1


@pytest.mark.django_db
def test_unchanged_input_reuses_the_finished_result(
    researcher_client: APIClient, rated_study: Study
) -> None:
    """A bump that leaves the analysed table as it was (e.g. a rating of a session that
    is not completed yet) gets a new job whose result is copied, not computed again."""
    _status, first = analyse(researcher_client, rated_study)
    first_job = finish(first["id"])
    bump_data_version(rated_study)
    _status, second = analyse(researcher_client, rated_study)
    with mock.patch("qoe_analysis.analyze", side_effect=AssertionError("analysed again")):
        second_job = finish(second["id"])
    assert second_job.pk != first_job.pk and second_job.result == first_job.result
    assert second_job.input_sha256 == first_job.input_sha256
    assert second_job.stage == f"done (same input as job {first_job.pk})"


@pytest.mark.django_db
def test_no_ratings_of_completed_sessions_is_still_nothing_to_analyse(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    response = researcher_client.post(
        f"/api/v1/studies/{owned_example_study.pk}/analysis/", {}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "no_ratings"
    assert not AnalysisJob.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_first_requests_create_one_job(rated_study: Study) -> None:
    """Both requests miss the cache at once; the unique key lets one insert win and the
    other answers with the winner's job.

    After both have missed, the rest of each request runs in turn (``gate``): the race
    is in the decision, and SQLite's shared in-memory test database would refuse a
    second writer at the same moment ("table is locked") instead of making it wait.
    """
    barrier = threading.Barrier(2)
    gate = threading.Lock()
    mine = threading.local()
    outcomes: list[services.JobRequest] = []
    errors: list[BaseException] = []
    lookup = services.live_job

    def racing_lookup(key: dict[str, Any]) -> AnalysisJob | None:
        found = lookup(key)
        if found is None and not getattr(mine, "missed", False):
            mine.missed = True
            barrier.wait(timeout=60)  # both have missed before either inserts
            gate.acquire()
            mine.holding = True
        return found

    def first_request() -> None:
        try:
            outcomes.append(request_analysis(rated_study, reliable_only=False))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connection.close()
            if getattr(mine, "holding", False):
                gate.release()

    queued: list[int] = []
    with (
        mock.patch.object(services, "live_job", side_effect=racing_lookup),
        mock.patch.object(services, "_enqueue", side_effect=queued.append),
    ):
        threads = [threading.Thread(target=first_request) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert not errors, errors
    assert AnalysisJob.objects.count() == 1
    assert {outcome.job.pk for outcome in outcomes} == {AnalysisJob.objects.get().pk}
    assert sorted(outcome.cached for outcome in outcomes) == [False, True]
    assert len(queued) == 1


# --- the write paths bump the data version ----------------------------------------------------


def bumps(study: Study, write: Callable[[], Any]) -> int:
    before = data_version(study)
    write()
    return data_version(study) - before


@pytest.mark.django_db
def test_a_finished_import_bumps_the_data_version(example_study: Study) -> None:
    assert bumps(example_study, lambda: import_sample(example_study, 20, "I")) == 1


@pytest.mark.django_db
def test_analysis_settings_bump_it_other_settings_do_not(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    def patch(body: dict[str, Any]) -> Callable[[], None]:
        def write() -> None:
            url = f"/api/v1/studies/{owned_example_study.pk}/"
            response = researcher_client.patch(url, body, format="json")
            assert response.status_code == 200, response.content

        return write

    assert bumps(owned_example_study, patch({"min_response_ms": 900})) == 1
    assert bumps(owned_example_study, patch({"acceptance": {"item": "overall", "min": 4}})) == 1
    questions = [*owned_example_study.questionnaire]
    questions.append({"key": "hours", "phase": "post", "kind": "integer", "text": "Hours a week?"})
    assert bumps(owned_example_study, patch({"questionnaire": questions})) == 1
    assert bumps(owned_example_study, patch({"title": "Renamed"})) == 0
    assert bumps(owned_example_study, patch({"min_response_ms": 900})) == 0  # unchanged


@pytest.mark.django_db
def test_a_study_document_with_new_rating_settings_bumps_it(example_study: Study) -> None:
    document = export_study_document(example_study)
    assert bumps(example_study, lambda: load_study_document(document)) == 0
    document["min_response_ms"] = 1234
    assert bumps(example_study, lambda: load_study_document(document)) == 1


@pytest.mark.django_db
def test_a_participant_change_bumps_it(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    participant = Participant.objects.create(study=owned_example_study, code="P9", age=30)

    def write() -> None:
        url = f"/api/v1/participants/{participant.pk}/"
        response = researcher_client.patch(url, {"age": 31}, format="json")
        assert response.status_code == 200, response.content

    assert bumps(owned_example_study, write) == 1


@pytest.mark.django_db
def test_saving_a_stale_study_never_moves_the_counter_back(example_study: Study) -> None:
    stale = Study.objects.get(pk=example_study.pk)
    bump_data_version(example_study)
    stale.title = "Saved from an old copy"
    stale.save()
    assert data_version(example_study) == 1
    assert Study.objects.get(pk=example_study.pk).title == "Saved from an old copy"


@pytest.mark.django_db
def test_saving_a_stale_session_never_moves_its_counter_back(rated_study: Study) -> None:
    session = rated_study.sessions.first()
    assert session is not None
    stale = Session.objects.get(pk=session.pk)
    with transaction.atomic():
        bump_session_data_version(Session.objects.select_for_update().get(pk=session.pk))
    stale.message = "saved from an old copy"
    stale.save()
    fresh = Session.objects.get(pk=session.pk)
    assert fresh.data_version == 1 and fresh.message == "saved from an old copy"


@pytest.mark.django_db
def test_the_key_adds_the_sessions_counters_to_the_studys(
    researcher_client: APIClient, rated_study: Study
) -> None:
    """A bump of any session's counter is a new data version, and so a new job; the study
    row's own counter is not touched by it."""
    first, second = list(rated_study.sessions.order_by("id"))[:2]
    _status, before = analyse(researcher_client, rated_study)
    assert before["data_version"] == study_row_counter(rated_study) == 0
    seen = {before["id"]}
    for session, expected in ((first, 1), (second, 2), (first, 3)):
        with transaction.atomic():
            bump_session_data_version(Session.objects.select_for_update().get(pk=session.pk))
        status, after = analyse(researcher_client, rated_study)
        assert status == 202 and after["id"] not in seen
        assert after["data_version"] == data_version(rated_study) == expected
        seen.add(after["id"])
    bump_data_version(rated_study)  # an import or a settings change: the study's counter
    status, after = analyse(researcher_client, rated_study)
    assert status == 202 and after["id"] not in seen and after["data_version"] == 4
    assert study_row_counter(rated_study) == 1
    assert [s.data_version for s in rated_study.sessions.order_by("id")][:2] == [2, 1]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_each_rating_and_the_completion_of_a_session_bump_it(
    dry_run_agent: Any, researcher_client: APIClient, owned_example_study: Study
) -> None:
    """Through the lab's API with a dry-run agent: +1 per rating, +1 when completed; each
    on the session's counter, so that no rating waits for the study row's lock."""
    from qoelab.runs.tests.lab import Lab
    from qoelab.runs.tests.test_rating_items import rate, start_session

    study = owned_example_study
    study.rehearsal = True  # a dry-run agent is refused in production otherwise
    study.save()
    session, screen = start_session(Lab(researcher_client), study, dry_run_agent)
    sid = session["id"]
    row_before = study_row_counter(study)
    for position in range(1, session["scenario_count"] + 1):
        response = researcher_client.post(f"/api/v1/sessions/{sid}/advance/")
        assert response.status_code == 200, response.content  # play period over → rating

        def give(position: int = position) -> None:
            answer = rate(screen, sid, position, {"overall": 1 + position % 5})
            assert answer.status_code == 201, answer.content

        with CaptureQueriesContext(connection) as queries:
            assert bumps(study, give) == 1
        # The rating's transaction writes its own session row, never the study's.
        assert not [q for q in queries if q["sql"].startswith('UPDATE "studies_study"')]
        if position < session["scenario_count"]:
            assert researcher_client.get(f"/api/v1/sessions/{sid}/").json()["state"] == "playing"

    def complete() -> None:
        answer_post_questions(screen, sid, willing_to_pay="no", attitude="neutral")
        assert researcher_client.get(f"/api/v1/sessions/{sid}/").json()["state"] == "completed"

    assert bumps(study, complete) == 1
    assert study_row_counter(study) == row_before
    assert Session.objects.get(pk=sid).data_version == session["scenario_count"] + 1
