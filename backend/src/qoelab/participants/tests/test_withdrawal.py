"""Withdrawing a participant: erase and exclude, ownership, idempotence, and the exports.

Each test fails if a withdrawn participant's data stayed in an export, if a repeat wrote a
second audit row, if a stranger could withdraw, or if the audit kept erased data.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Sum
from rest_framework.test import APIClient

from qoelab.analysis_jobs.services import has_ratings_to_analyse
from qoelab.exports.study_exports import study_json, sureal_dataset
from qoelab.exports.tidy import tidy_table
from qoelab.participants.models import Participant, Withdrawal
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.services import create_session
from qoelab.runs.state_machine import State
from qoelab.studies.models import Study

WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def completed(study: Study, code: str, score: int = 3) -> Participant:
    """A participant with one completed session: a rating per slot and two answers."""
    participant = Participant.objects.create(study=study, code=code, age=30, skill="high")
    game = study.games.order_by("id").first()
    assert game is not None
    session = create_session(study=study, participant=participant, game=game, station=None)
    for index, entry in enumerate(session.order):
        Rating.objects.create(
            session=session,
            scenario_id=entry["scenario"],
            order_index=index,
            round=entry["round"],
            values={"overall": score},
            rated_at=WHEN,
            applied_profile={},
            idempotency_key=f"k-{session.pk}-{index}",
            source="participant",
        )
    for key in ("genre_preference", "comment"):
        Answer.objects.create(session=session, phase="pre", key=key, value=True, answered_at=WHEN)
    Session.objects.filter(pk=session.pk).update(state=State.COMPLETED, data_version=7)
    return participant


def withdraw(client: APIClient, participant: Participant, mode: str, status: int = 200) -> Any:
    response = client.post(
        f"/api/v1/participants/{participant.pk}/withdraw/",
        {"mode": mode, "reason": "asked by e-mail"},
        format="json",
    )
    assert response.status_code == status, response.content
    return response.json()


def data_version(study: Study) -> int:
    study.refresh_from_db()
    sessions = study.sessions.aggregate(total=Sum("data_version"))["total"] or 0
    return study.data_version + sessions


def csv_raters(study: Study) -> set[str]:
    rows = csv.DictReader(io.StringIO(tidy_table(study).to_csv()))
    return {row["rater_id"] for row in rows}


@pytest.mark.django_db
def test_erase_deletes_the_data_keeps_a_tombstone_and_audits_counts_only(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    study = owned_example_study
    gone = completed(study, "P001", score=1)
    completed(study, "P002", score=5)
    ratings = Rating.objects.filter(session__participant=gone).count()
    before = data_version(study)

    body = withdraw(researcher_client, gone, "erase")

    assert body["created"] is True
    assert body["withdrawal"]["erased"] == {"sessions": 1, "ratings": ratings, "answers": 2}
    assert body["withdrawal"]["by_username"] == "alice"
    assert body["participant"]["withdrawal"] == "erase"
    assert not Session.objects.filter(participant=gone).exists()
    assert not Rating.objects.filter(session__participant=gone).exists()
    assert not Answer.objects.filter(session__participant=gone).exists()
    tombstone = Participant.objects.get(pk=gone.pk)
    assert (tombstone.code, tombstone.age, tombstone.skill) == ("P001", None, "")
    # the audit has the pseudonym and counts, no values or facts
    entry = Withdrawal.objects.get()
    assert (entry.participant_code, entry.mode, entry.reason) == (
        "P001",
        "erase",
        "asked by e-mail",
    )
    assert "30" not in str(entry.erased) and "high" not in str(entry.erased)
    # the analysis cache key grows although a session (counter 7) was deleted
    assert data_version(study) > before
    assert csv_raters(study) == {"P002"}


@pytest.mark.django_db
def test_exclude_keeps_the_rows_and_every_export_leaves_them_out(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    study = owned_example_study
    kept = completed(study, "P001", score=1)
    completed(study, "P002", score=5)
    rows = Rating.objects.filter(session__participant=kept).count()
    assert csv_raters(study) == {"P001", "P002"}

    body = withdraw(researcher_client, kept, "exclude")

    assert body["withdrawal"]["erased"] == {"sessions": 0, "ratings": 0, "answers": 0}
    assert Rating.objects.filter(session__participant=kept).count() == rows
    assert csv_raters(study) == {"P002"}
    document = study_json(study)
    assert [p["code"] for p in document["participants"]] == ["P002"]
    assert {s["participant"] for s in document["sessions"]} == {"P002"}
    sureal = sureal_dataset(study)
    observers = {o for stimulus in sureal["dis_videos"] for o in stimulus["os"]}
    assert observers == {"P002"}
    csv_response = researcher_client.get(f"/api/v1/studies/{study.pk}/export/csv/")
    assert b"P001" not in csv_response.content and b"P002" in csv_response.content


@pytest.mark.django_db
def test_a_study_whose_only_rater_is_excluded_has_nothing_to_analyse(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    only = completed(owned_example_study, "P001")
    assert has_ratings_to_analyse(owned_example_study)
    withdraw(researcher_client, only, "exclude")
    assert not has_ratings_to_analyse(owned_example_study)


@pytest.mark.django_db
def test_a_repeat_answers_the_same_result_and_writes_no_second_entry(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    person = completed(owned_example_study, "P001")
    first = withdraw(researcher_client, person, "exclude")
    again = withdraw(researcher_client, person, "exclude")
    assert again["withdrawal"] == first["withdrawal"]
    assert again["created"] is False
    assert Withdrawal.objects.count() == 1
    # excluded, then erased: a second entry; an erased participant cannot be excluded
    erased = withdraw(researcher_client, person, "erase")
    assert erased["created"] is True and erased["withdrawal"]["erased"]["sessions"] == 1
    assert withdraw(researcher_client, person, "erase")["created"] is False
    withdraw(researcher_client, person, "exclude", status=409)
    assert Withdrawal.objects.count() == 2


@pytest.mark.django_db
def test_only_the_owner_withdraws_and_reads_the_audit(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    person = completed(owned_example_study, "P001")
    users = get_user_model().objects
    stranger, member = APIClient(), APIClient()
    stranger.force_authenticate(users.create_user("mallory", password="x-password-1"))
    member_user = users.create_user("bob", password="x-password-1")
    owned_example_study.members.add(member_user)
    member.force_authenticate(member_user)

    withdraw(stranger, person, "erase", status=404)
    withdraw(member, person, "erase", status=403)
    withdraw(APIClient(), person, "erase", status=403)
    assert Session.objects.filter(participant=person).exists()
    audit = f"/api/v1/studies/{owned_example_study.pk}/withdrawals/"
    assert stranger.get(audit).status_code == 404
    assert member.get(audit).status_code == 403

    withdraw(researcher_client, person, "exclude")
    listed = researcher_client.get(audit).json()
    assert (listed["excluded"], listed["erased"]) == (1, 0)
    assert [e["participant_code"] for e in listed["entries"]] == ["P001"]


@pytest.mark.django_db
def test_a_running_session_is_refused_and_a_withdrawn_participant_gets_no_new_session(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    study = owned_example_study
    person = Participant.objects.create(study=study, code="P001")
    game = study.games.order_by("id").first()
    assert game is not None
    session = create_session(study=study, participant=person, game=game, station=None)
    Session.objects.filter(pk=session.pk).update(state=State.PLAYING)
    body = withdraw(researcher_client, person, "erase", status=409)
    assert "running" in body["detail"]
    assert Session.objects.filter(pk=session.pk).exists() and not Withdrawal.objects.exists()

    Session.objects.filter(pk=session.pk).update(state=State.ABORTED)
    withdraw(researcher_client, person, "erase")
    other = study.games.order_by("id").last()
    response = researcher_client.post(
        "/api/v1/sessions/",
        {"participant": person.pk, "game": other.pk if other else game.pk, "station": None},
        format="json",
    )
    assert response.status_code in (400, 409), response.content
    assert not Session.objects.filter(participant=person).exists()
