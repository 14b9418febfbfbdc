"""The participant's screen: what it shows of a session (no scenario code, no impairment).

Its texts are the client's (English and German, ``frontend/src/participant/i18n.ts``): the
view names the ``step`` and carries no text of its own.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from qoelab.ratings.values import asked_items, needs_baseline
from qoelab.runs import services
from qoelab.runs.models import Session
from qoelab.runs.phases import PHASES, phase_of
from qoelab.runs.qc_plan import is_trap
from qoelab.runs.services.rating import baseline_rated, rated_items
from qoelab.runs.state_machine import State
from qoelab.studies.models import Language, Study
from qoelab.studies.rating_item_fields import RatingItemsField

#: How often the participant's screen and the console poll a session.
POLL_INTERVAL_MS = 1000

PARTICIPANT_STEPS = {
    State.CREATED: "waiting",
    State.QUESTIONNAIRE: "questionnaire",
    State.FREE_PLAY: "free_play",
    State.APPLYING: "preparing",
    State.PLAYING: "playing",
    State.RATING: "rating",
    State.POST_QUESTIONS: "post_questions",
    State.COMPLETED: "thanks",
    State.PAUSED: "paused",
    State.ABORTED: "ended",
}


class ScaleOptionSerializer(serializers.Serializer[Any]):
    score = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]


def legacy_scale(study: Study) -> list[dict[str, Any]]:
    """The first item's points with the study's scale labels, while they describe it (an
    integer scale 1..len(scale_labels), e.g. ACR-5); else []."""
    scale = study.rating_items[0]["scale"]
    labels = study.scale_labels
    if scale["kind"] == "continuous" or (scale["min"], scale["max"]) != (1, len(labels)):
        return []
    return [{"score": i + 1, "label": label} for i, label in enumerate(labels)]


class ParticipantViewSerializer(serializers.Serializer[Session]):
    """What the participant's screen shows: no scenario code, no impairment, no hint."""

    session = serializers.IntegerField(source="pk")
    step = serializers.ChoiceField(choices=sorted(set(PARTICIPANT_STEPS.values())))
    revision = serializers.IntegerField()
    study_title = serializers.CharField(source="study.title")
    language = serializers.ChoiceField(
        choices=Language.choices,
        help_text="the study's language: the screen starts in it unless the participant "
        "chose another one (or the session link names one)",
    )
    game = serializers.CharField(source="game.name")
    position = serializers.IntegerField(allow_null=True)
    scenario_count = serializers.IntegerField()
    seconds_remaining = serializers.FloatField(allow_null=True)
    can_continue = serializers.BooleanField(help_text="free play: the participant may go on")
    needs = serializers.DictField(child=serializers.BooleanField())
    questions = serializers.ListField(child=serializers.DictField())
    scale = ScaleOptionSerializer(many=True, help_text="legacy: the first item's points")
    items = RatingItemsField(
        help_text="the study's rating items in order (rating step only; a DCR item only "
        "once a baseline has been rated in the session)"
    )
    training = serializers.BooleanField(help_text="the current slot is a training slot")
    trap = serializers.DictField(
        child=serializers.CharField(),
        allow_null=True,
        help_text='a trapping item (ITU-T P.808) is being rated: its instruction {"en", "de"}, '
        "shown as the question of the one item asked (the first); null otherwise",
    )
    phase = serializers.ChoiceField(choices=PHASES, allow_null=True)
    phase_position = serializers.IntegerField(
        allow_null=True, help_text="the slot's number within its phase"
    )
    phase_count = serializers.IntegerField(allow_null=True, help_text="slots in the phase")
    poll_interval_ms = serializers.IntegerField()

    def to_representation(self, session: Session) -> dict[str, Any]:
        step = PARTICIPANT_STEPS[State(session.state)]
        remaining = services.seconds_remaining(session)
        show_position = session.state in (State.APPLYING, State.PLAYING, State.RATING)
        phase = phase_of(session) if show_position else None
        rating = session.state == State.RATING
        entry = session.order_entry() if rating else None
        trap = entry["text"] if is_trap(entry) and entry is not None else None
        questions: list[dict[str, Any]] = []
        if session.state == State.QUESTIONNAIRE:
            questions = session.study.questions("pre")
        elif session.state == State.POST_QUESTIONS:
            questions = session.study.questions("post")
        return {
            "session": session.pk,
            "step": step,
            "revision": session.revision,
            "study_title": session.study.title,
            "language": session.study.language,
            "game": session.game.name,
            "position": session.current_index + 1 if show_position else None,
            "scenario_count": session.scenario_count,
            "seconds_remaining": remaining,
            "can_continue": session.state == State.FREE_PLAY and (remaining or 0.0) == 0.0,
            "needs": services.pre_play_requirements(session)
            if session.state == State.QUESTIONNAIRE
            else {},
            "questions": questions,
            "scale": legacy_scale(session.study) if rating else [],
            "items": rated_items(session)
            if trap is not None
            else asked_items(
                session.study.rating_items,
                # Only a DCR item depends on a rated baseline: without one, skip the query.
                baseline_rated=needs_baseline(session.study.rating_items)
                and baseline_rated(session),
            )
            if rating
            else [],
            "training": bool(phase and phase.name == "training"),
            "trap": trap,
            "phase": phase.name if phase else None,
            "phase_position": phase.position if phase else None,
            "phase_count": phase.count if phase else None,
            "poll_interval_ms": POLL_INTERVAL_MS,
        }
