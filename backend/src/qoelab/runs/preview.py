"""The participant's screens of a study, built from the study alone (issue 35, item 3).

The researcher's preview steps through the screens a session would show, each the same
document the participant's API answers (:class:`~qoelab.runs.participant_view.
ParticipantViewSerializer`), but built from the study's settings: no participant, no
session and no rating is read or written. ``session`` is 0 in every screen (no session has
that id). The screens, in a session's order:

questionnaire (consent and the built-in facts as a new participant is asked, then the
study's pre-session questions) → free play (when the study has any) → a training round and
its rating (when training is on; training ratings are marked) → the first test round and
its rating (the baseline: a DCR item is not asked yet) → a trapping item's screen (when the
study has one, ITU-T P.808; a hidden reference is unannounced, so it has no screen of its
own) → a second rating with every item
(only when the study has a DCR item, which needs a rated baseline) → the post-session
questions (when there are any) → the end screen.
"""

from __future__ import annotations

from typing import Any

from qoelab.ratings.values import asked_items, needs_baseline
from qoelab.runs.ordering import training_scenarios
from qoelab.runs.participant_view import POLL_INTERVAL_MS, legacy_scale
from qoelab.studies.models import Study

#: The session id every preview screen carries (none exists: ids start at 1).
PREVIEW_SESSION = 0


def _slot_counts(study: Study) -> tuple[int, int]:
    """(training slots, test slots) of a session of the study (``runs.ordering``)."""
    scenarios = study.current_scenarios
    training = study.training or {}
    trained = (
        len(training_scenarios(scenarios, list(training.get("scenarios") or [])))
        if training.get("enabled")
        else 0
    )
    others = sum(1 for s in scenarios if not s.is_baseline)
    qc = getattr(study, "quality_control", None) or {}
    checks = len(qc.get("traps") or []) + (1 if qc.get("hidden_reference") else 0)
    tested = 1 + others * (2 if study.retest_round else 1) + checks
    return trained, tested


def preview_screens(study: Study) -> list[dict[str, Any]]:
    """``[{"title", "view"}]``: each screen's name for the researcher and its view."""
    game = study.games.order_by("id").values_list("name", flat=True).first() or ""
    trained, tested = _slot_counts(study)
    total = trained + tested
    base: dict[str, Any] = {
        "session": PREVIEW_SESSION,
        "study_title": study.title,
        "language": study.language,
        "game": game,
        "position": None,
        "scenario_count": total,
        "seconds_remaining": None,
        "can_continue": False,
        "needs": {},
        "questions": [],
        "scale": [],
        "items": [],
        "training": False,
        "trap": None,
        "phase": None,
        "phase_position": None,
        "phase_count": None,
        "poll_interval_ms": POLL_INTERVAL_MS,
    }
    screens: list[tuple[str, dict[str, Any]]] = [
        (
            "Questionnaire",
            {
                "step": "questionnaire",
                "needs": {"consent": True, "age": True, "skill": True},
                "questions": study.questions("pre"),
            },
        )
    ]
    if study.free_play_minutes:
        screens.append(
            (
                "Free play",
                {
                    "step": "free_play",
                    "seconds_remaining": 0.0,
                    "can_continue": True,
                },
            )
        )

    def slot(index: int, phase: str) -> dict[str, Any]:
        in_phase = index + 1 if phase == "training" else index + 1 - trained
        return {
            "position": index + 1,
            "training": phase == "training",
            "phase": phase,
            "phase_position": in_phase,
            "phase_count": trained if phase == "training" else tested,
        }

    def rating(index: int, phase: str, *, baseline_rated: bool) -> dict[str, Any]:
        items = asked_items(study.rating_items, baseline_rated=baseline_rated)
        return {
            "step": "rating",
            "scale": legacy_scale(study),
            "items": items,
            **slot(index, phase),
        }

    seconds = float(study.seconds_per_scenario)
    if trained:
        training_seconds = float((study.training or {}).get("seconds") or seconds)
        playing = {"step": "playing", "seconds_remaining": training_seconds, **slot(0, "training")}
        screens.append(("Training round", playing))
        screens.append(("Training rating", rating(0, "training", baseline_rated=False)))
    playing = {"step": "playing", "seconds_remaining": seconds, **slot(trained, "test")}
    screens.append(("Round (the baseline)", playing))
    screens.append(("Rating", rating(trained, "test", baseline_rated=False)))
    traps = list((getattr(study, "quality_control", None) or {}).get("traps") or [])
    if traps:
        # A trapping item (ITU-T P.808): the first item only, its instruction as the question.
        trap = {**rating(trained + 1, "test", baseline_rated=False), "trap": dict(traps[0]["text"])}
        trap["items"] = [{**study.rating_items[0], "required": True}]
        screens.append(("Trapping item (quality control)", trap))
    if needs_baseline(study.rating_items) and tested > 1:
        second = rating(trained + 1 + bool(traps), "test", baseline_rated=True)
        screens.append(("Rating with the DCR item (after the baseline)", second))
    if study.questions("post"):
        screens.append(
            (
                "Post-session questions",
                {"step": "post_questions", "questions": study.questions("post")},
            )
        )
    screens.append(("End", {"step": "thanks"}))
    return [
        {"title": title, "view": {**base, **fields, "revision": number}}
        for number, (title, fields) in enumerate(screens, start=1)
    ]
