"""The two polling paths of a live lab: queries per request and the participant's ETag.

The participant's screen and the researcher's console poll every second, so their cost is
multiplied by every seat in the lab (issue 16, goal 3). Before: 7–8 queries per participant
poll (token, row, lock, study, station, row again, baseline check) and 12–13 per console
read. The counts pinned here are what a poll costs once nothing is due; a due step
(timer, lease) adds the locked tick, which the last tests exercise.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from qoelab.runs import services
from qoelab.runs.models import Session
from qoelab.runs.participant_etag import matches, participant_etag
from qoelab.runs.services.timing import play_seconds
from qoelab.runs.tests.conftest import Playing
from qoelab.runs.tests.lab import answer_post_questions, rate
from qoelab.runs.tests.test_rating_items import DCR_ITEM
from qoelab.studies.models import Study


def poll_path(session: dict[str, Any]) -> str:
    return f"/api/v1/participant/sessions/{session['id']}/"


def test_a_participant_poll_with_nothing_due_is_one_query(playing: Playing) -> None:
    lab, session = playing
    screen = lab.screen(session)
    with CaptureQueriesContext(connection) as queries:
        response = screen.get(poll_path(session))
    assert response.status_code == 200 and response.json()["step"] == "playing"
    assert len(queries) == 1, [q["sql"] for q in queries]
    assert queries[0]["sql"].startswith("SELECT")  # nothing due: no lock, no write


def test_a_rating_poll_is_one_query_and_its_304_one(playing: Playing) -> None:
    """The example study has no DCR item: whether a baseline was rated changes nothing in
    the view, so it is not looked up."""
    lab, session = playing
    lab.post(f"/api/v1/sessions/{session['id']}/advance/")  # end of play → rating
    screen = lab.screen(session)
    with CaptureQueriesContext(connection) as queries:
        first = screen.get(poll_path(session))
    assert first.status_code == 200 and first.json()["step"] == "rating"
    assert len(queries) == 1, [q["sql"] for q in queries]
    with CaptureQueriesContext(connection) as queries:
        again = screen.get(poll_path(session), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert len(queries) == 1, [q["sql"] for q in queries]


def test_a_rating_poll_of_a_study_with_a_dcr_item_is_two_queries(playing: Playing) -> None:
    """The row, and whether a baseline was rated before (it decides the DCR item)."""
    lab, session = playing
    study = Session.objects.get(pk=session["id"]).study
    Study.objects.filter(pk=study.pk).update(rating_items=[*study.rating_items, DCR_ITEM])
    lab.post(f"/api/v1/sessions/{session['id']}/advance/")  # end of play → rating
    with CaptureQueriesContext(connection) as queries:
        first = lab.screen(session).get(poll_path(session))
    assert first.status_code == 200 and first.json()["step"] == "rating"
    assert [item["key"] for item in first.json()["items"]] == [
        item["key"] for item in study.rating_items
    ]  # no baseline rated yet: the DCR item is not asked
    assert len(queries) == 2, [q["sql"] for q in queries]
    assert 'FROM "ratings_rating"' in queries[1]["sql"]


def test_the_console_session_view_is_four_queries(playing: Playing) -> None:
    lab, session = playing
    sid = session["id"]
    lab.post(f"/api/v1/sessions/{sid}/advance/")
    assert rate(lab.screen(session), sid, 4, 1).status_code == 201
    with CaptureQueriesContext(connection) as queries:
        response = lab.researcher.get(f"/api/v1/sessions/{sid}/")
    body = response.json()
    assert response.status_code == 200 and body["state"] == "playing"
    assert [r["scenario_code"] for r in body["ratings"]] == [body["order"][0]["code"]]
    assert body["current_scenario"]["code"] == body["order"][1]["code"]
    # the row (study, participant, game, station joined), ratings with their scenarios,
    # answers, the current scenario
    assert len(queries) == 4, [q["sql"] for q in queries]


def test_a_participant_rating_reads_the_session_only_by_its_token(playing: Playing) -> None:
    """The token's read (authentication) is the row the action starts from, and the view
    after the step is read by the token again (the poll's query, ``load_by_token``); no
    read of the session by id outside the steps' locked reads."""
    lab, session = playing
    sid = session["id"]
    lab.post(f"/api/v1/sessions/{sid}/advance/")  # end of play → rating
    screen = lab.screen(session)
    with CaptureQueriesContext(connection) as queries:
        rated = rate(screen, sid, 4, 1)
    assert rated.status_code == 201, rated.content
    reads = [
        q["sql"]
        for q in queries
        if q["sql"].startswith('SELECT "runs_session"."id"') and "FOR UPDATE" not in q["sql"]
    ]
    assert len(reads) == 2, reads
    assert all('WHERE "runs_session"."token" = ' in sql for sql in reads), reads
    view = rated.json()["session"]
    assert view["step"] == "playing" and view["position"] == 2
    polled = screen.get(poll_path(session)).json()  # what the next poll shows
    assert 0 <= view.pop("seconds_remaining") - polled.pop("seconds_remaining") < 5
    assert view == polled


def test_a_participant_step_answers_the_view_the_poll_shows(playing: Playing) -> None:
    """The questionnaire / post-question actions answer with the view read by token."""
    lab, session = playing
    sid = session["id"]
    screen = lab.screen(session)
    for position in range(1, Session.objects.get(pk=sid).scenario_count + 1):
        lab.post(f"/api/v1/sessions/{sid}/advance/")  # end of play → rating
        assert rate(screen, sid, 3, position).status_code == 201
    done = answer_post_questions(screen, sid)
    assert done["step"] == "thanks"
    assert done == screen.get(poll_path(session)).json()


def test_an_unchanged_view_is_304_with_the_same_etag(playing: Playing) -> None:
    lab, session = playing
    lab.post(f"/api/v1/sessions/{session['id']}/advance/")  # rating: no timer
    screen = lab.screen(session)
    first = screen.get(poll_path(session))
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert first["Cache-Control"] == "private, no-cache"
    assert "X-Participant-Token" in first["Vary"]
    again = screen.get(poll_path(session), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag
    # a list, or a weak tag of the same value, matches too (RFC 9110 §13.1.2)
    listed = screen.get(poll_path(session), HTTP_IF_NONE_MATCH=f'"other", W/{etag}')
    assert listed.status_code == 304
    other = screen.get(poll_path(session), HTTP_IF_NONE_MATCH='"p-not-this-one"')
    assert other.status_code == 200 and other.json() == first.json()


def test_a_state_change_gives_a_new_etag_and_a_full_answer(playing: Playing) -> None:
    lab, session = playing
    screen = lab.screen(session)
    playing_view = screen.get(poll_path(session))
    lab.post(f"/api/v1/sessions/{session['id']}/advance/")  # playing → rating
    rating_view = screen.get(poll_path(session), HTTP_IF_NONE_MATCH=playing_view["ETag"])
    assert rating_view.status_code == 200 and rating_view.json()["step"] == "rating"
    assert rating_view["ETag"] != playing_view["ETag"]
    assert rate(screen, session["id"], 3, 1).status_code == 201  # rating → next scenario
    next_view = screen.get(poll_path(session), HTTP_IF_NONE_MATCH=rating_view["ETag"])
    assert next_view.status_code == 200 and next_view.json()["position"] == 2
    assert next_view["ETag"] not in (rating_view["ETag"], playing_view["ETag"])


def test_the_countdown_enters_the_etag_in_whole_seconds(playing: Playing) -> None:
    _, session = playing
    row = Session.objects.select_related("study", "participant").get(pk=session["id"])
    assert row.scenario_started_at is not None
    start = row.scenario_started_at + timedelta(seconds=5, milliseconds=100)
    same_second = participant_etag(row, start + timedelta(milliseconds=800))
    assert participant_etag(row, start) == same_second
    assert participant_etag(row, start + timedelta(seconds=1)) != same_second


def test_matches_reads_if_none_match_as_rfc_9110_does() -> None:
    assert matches('"a"', '"a"') and matches('W/"a"', '"a"') and matches("*", '"a"')
    assert matches('"b", "a"', '"a"')
    assert not matches(None, '"a"') and not matches("", '"a"') and not matches('"b"', '"a"')


def test_a_poll_takes_the_step_time_made_due(playing: Playing) -> None:
    """The unlocked pre-check must not hide a due step: the scenario's time is up. The
    poll ends it with one guarded UPDATE (no transaction, no row lock), writing what the
    locked step writes."""
    lab, session = playing
    started = timezone.now() - timedelta(hours=1)
    Session.objects.filter(pk=session["id"]).update(scenario_started_at=started)
    before = Session.objects.select_related("study").get(pk=session["id"])
    with CaptureQueriesContext(connection) as queries:
        view = lab.screen(session).get(poll_path(session)).json()
    assert view["step"] == "rating"
    sql = [q["sql"] for q in queries]
    assert len(sql) == 2 and sql[0].startswith('SELECT "runs_session"'), sql
    assert sql[1].startswith('UPDATE "runs_session"') and '"revision" = ' in sql[1], sql
    after = Session.objects.get(pk=session["id"])
    assert after.state == "rating" and after.revision == before.revision + 1
    assert after.scenario_ended_at == started + timedelta(seconds=play_seconds(before))
    assert view == lab.screen(session).get(poll_path(session)).json()  # as read afresh


def test_a_due_step_that_needs_the_agent_is_taken_under_the_lock(playing: Playing) -> None:
    """Time up and a lease renewal due: the locked tick takes both; the view is built from
    the ticked row (its game and participant from the first read), not from a third read."""
    lab, session = playing
    long_ago = timezone.now() - timedelta(hours=1)
    Session.objects.filter(pk=session["id"]).update(
        scenario_started_at=long_ago, lease_renewed_at=long_ago
    )
    with CaptureQueriesContext(connection) as queries:
        view = lab.screen(session).get(poll_path(session)).json()
    assert view["step"] == "rating"
    after = Session.objects.get(pk=session["id"])
    assert after.state == "rating" and after.lease_renewed_at > long_ago + timedelta(minutes=59)
    reads = [q["sql"] for q in queries if q["sql"].startswith('SELECT "runs_session"')]
    assert len(reads) == 2 and reads[1].endswith('FOR UPDATE OF "runs_session"'), reads
    assert view == lab.screen(session).get(poll_path(session)).json()


def test_the_unlocked_scenario_end_leaves_a_row_changed_since_it_was_read(
    playing: Playing,
) -> None:
    """Another step moved the session (its revision) after the poll read it: the guarded
    UPDATE matches nothing and the caller falls back to the locked tick."""
    _lab, session = playing
    Session.objects.filter(pk=session["id"]).update(
        scenario_started_at=timezone.now() - timedelta(hours=1)
    )
    stale = Session.objects.select_related("study").get(pk=session["id"])
    Session.objects.filter(pk=session["id"]).update(revision=F("revision") + 1)
    assert services.end_play_unlocked(stale, timezone.now()) is None
    row = Session.objects.get(pk=session["id"])
    assert row.state == "playing" and row.revision == stale.revision + 1
    assert row.scenario_ended_at is None
    fresh = Session.objects.select_related("study").get(pk=session["id"])
    assert services.end_play_unlocked(fresh, timezone.now()) is fresh
    assert Session.objects.get(pk=session["id"]).state == "rating"


def test_a_poll_renews_a_lease_that_is_due(playing: Playing) -> None:
    lab, session = playing
    stale = timezone.now() - timedelta(hours=1)
    Session.objects.filter(pk=session["id"]).update(lease_renewed_at=stale)
    with CaptureQueriesContext(connection) as queries:
        response = lab.screen(session).get(poll_path(session))
    assert response.status_code == 200
    assert any(q["sql"].startswith("UPDATE") for q in queries)  # the tick wrote the row
    renewed = Session.objects.get(pk=session["id"]).lease_renewed_at
    assert renewed is not None and renewed > stale + timedelta(minutes=59)
