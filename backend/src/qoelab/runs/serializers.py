"""Session representations: the researcher's full view and the participant's blind view."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from qoelab.participants.models import Participant, Skill
from qoelab.ratings.models import Answer, Rating
from qoelab.runs import services
from qoelab.runs.models import Session
from qoelab.runs.participant_view import POLL_INTERVAL_MS, ParticipantViewSerializer
from qoelab.runs.phases import PHASES, Phase, order_with_phases, phase_of, training_count
from qoelab.runs.session_list import SessionListSerializer, current_scenario
from qoelab.runs.state_machine import State
from qoelab.stations.models import Station
from qoelab.studies.models import Game

__all__ = [
    "AnswerSerializer",
    "ParticipantViewSerializer",
    "PostQuestionsSerializer",
    "QuestionnaireSerializer",
    "RateResponseSerializer",
    "RateSerializer",
    "RatingSerializer",
    "ReasonSerializer",
    "ResearcherRateSerializer",
    "SessionCreateSerializer",
    "SessionSerializer",
]


@extend_schema_field({"type": "object", "additionalProperties": {"type": "number"}})
class ItemValuesField(serializers.JSONField):
    """``{item key: number}``: one value per rating item, on the item's scale."""


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            "backend": {"type": "string"},
            "agent_version": {"type": "string"},
            "kernel": {"type": "object", "nullable": True, "additionalProperties": {}},
            "verified_at": {"type": "string", "format": "date-time", "nullable": True},
        },
    }
)
class ProvenanceField(serializers.JSONField):
    """Where a rating's impairment came from (``Rating.provenance``)."""


class RatingSerializer(serializers.ModelSerializer[Rating]):
    scenario_code = serializers.CharField(source="scenario.code", read_only=True)
    position = serializers.SerializerMethodField()
    values = ItemValuesField(help_text="{item key: value}; an optional item may be absent")
    training = serializers.BooleanField(help_text="a rating of the training phase")
    provenance = ProvenanceField(
        read_only=True,
        help_text='the agent\'s backend ("netlink"; "dry-run": nothing applied to a kernel; '
        '"import"), version, kernel document, and when a kernel read-back verified it',
    )
    response_ms = serializers.IntegerField(
        allow_null=True, help_text="client: rating screen shown → submit (ms)"
    )
    since_end_ms = serializers.IntegerField(
        allow_null=True, help_text="server: end of play → rating stored (ms)"
    )

    class Meta:
        model = Rating
        fields = [
            "id",
            "session",
            "scenario",
            "scenario_code",
            "position",
            "round",
            "values",
            "training",
            "response_ms",
            "since_end_ms",
            "scenario_started_at",
            "scenario_ended_at",
            "rated_at",
            "applied_profile",
            "provenance",
            "idempotency_key",
            "source",
        ]

    def get_position(self, rating: Rating) -> int:
        return rating.order_index + 1


class AnswerSerializer(serializers.ModelSerializer[Answer]):
    class Meta:
        model = Answer
        fields = ["key", "phase", "value", "answered_at"]


class SessionCreateSerializer(serializers.Serializer[Session]):
    participant = serializers.PrimaryKeyRelatedField(queryset=Participant.objects.all())
    game = serializers.PrimaryKeyRelatedField(queryset=Game.objects.all())
    station = serializers.PrimaryKeyRelatedField(
        queryset=Station.objects.all(), required=False, allow_null=True
    )
    seed = serializers.IntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="random when omitted"
    )


class SessionSerializer(serializers.ModelSerializer[Session]):
    """Everything a researcher sees, including the verified impairment being played."""

    participant_code = serializers.CharField(source="participant.code", read_only=True)
    game_name = serializers.CharField(source="game.name", read_only=True)
    station_name = serializers.CharField(
        source="station.name", read_only=True, default=None, allow_null=True
    )
    paused_from = serializers.ChoiceField(
        choices=State.choices,
        allow_blank=True,
        read_only=True,
        help_text="the phase a paused session was in when it paused (resuming re-enters it; "
        'a scenario paused while playing is applied again and replayed in full); "" when '
        "not paused",
    )
    position = serializers.SerializerMethodField()
    scenario_count = serializers.IntegerField(read_only=True)
    current_scenario = serializers.SerializerMethodField()
    seconds_remaining = serializers.SerializerMethodField()
    ratings = RatingSerializer(many=True, read_only=True)
    answers = AnswerSerializer(many=True, read_only=True)
    participant_token = serializers.CharField(source="token", read_only=True)
    poll_interval_ms = serializers.SerializerMethodField()
    order = serializers.SerializerMethodField()
    phase = serializers.SerializerMethodField()
    phase_position = serializers.SerializerMethodField()
    phase_count = serializers.SerializerMethodField()
    training_count = serializers.SerializerMethodField()

    class Meta:
        model = Session
        list_serializer_class = SessionListSerializer
        fields = [
            "id",
            "study",
            "study_version",
            "participant",
            "participant_code",
            "game",
            "game_name",
            "station",
            "station_name",
            "state",
            "revision",
            "paused_from",
            "paused_at",
            "message",
            "order_policy",
            "seed",
            "latin_square_row",
            "order",
            "position",
            "scenario_count",
            "training_count",
            "phase",
            "phase_position",
            "phase_count",
            "current_scenario",
            "seconds_remaining",
            "applied_profile",
            "applied_at",
            "applied_backend",
            "applied_agent_version",
            "applied_kernel",
            "applied_verified_at",
            "lease_renewed_at",
            "impairment_cleared_at",
            "scenario_started_at",
            "scenario_ended_at",
            "step_started_at",
            "imported",
            "created_at",
            "started_at",
            "completed_at",
            "ratings",
            "answers",
            "participant_token",
            "poll_interval_ms",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_position(self, session: Session) -> int | None:
        if session.state in (State.CREATED, State.QUESTIONNAIRE, State.FREE_PLAY):
            return None
        if session.state in (State.POST_QUESTIONS, State.COMPLETED):
            return None
        return session.current_index + 1

    @extend_schema_field(
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "scenario": {"type": "integer"},
                    "code": {"type": "string"},
                    "round": {"type": "integer", "description": "0 training, 1, 2 retest"},
                    "training": {"type": "boolean"},
                    "qc": {
                        "type": "string",
                        "enum": ["trap", "hidden_reference"],
                        "description": "an ITU-T P.808 check (absent: a scenario slot)",
                    },
                },
                "required": ["scenario", "code", "round", "training"],
            },
        }
    )
    def get_order(self, session: Session) -> list[dict[str, Any]]:
        return order_with_phases(session.order)

    def get_training_count(self, session: Session) -> int:
        """How many slots at the start of the order are training slots."""
        return training_count(session.order)

    def _phase(self, session: Session) -> Phase | None:
        return None if self.get_position(session) is None else phase_of(session)

    @extend_schema_field(serializers.ChoiceField(choices=PHASES, allow_null=True))
    def get_phase(self, session: Session) -> str | None:
        phase = self._phase(session)
        return phase.name if phase else None

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_phase_position(self, session: Session) -> int | None:
        phase = self._phase(session)
        return phase.position if phase else None

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_phase_count(self, session: Session) -> int | None:
        phase = self._phase(session)
        return phase.count if phase else None

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_current_scenario(self, session: Session) -> dict[str, Any] | None:
        entry = session.order_entry()
        # an aborted session plays nothing any more (issue 35: no stale "current scenario")
        if entry is None or session.state == State.ABORTED or self.get_position(session) is None:
            return None
        scenario = current_scenario(session, self.context)
        return {
            "id": scenario.pk,
            "code": scenario.code,
            "label": scenario.label,
            "round": entry.get("round", 1),
            "training": bool(entry.get("training")),
            "requested_profile": scenario.profile(),
        }

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_seconds_remaining(self, session: Session) -> float | None:
        return services.seconds_remaining(session)

    def get_poll_interval_ms(self, session: Session) -> int:
        return POLL_INTERVAL_MS


class RateSerializer(serializers.Serializer[Any]):
    values = ItemValuesField(
        required=False,
        help_text="{item key: number} for the study's rating_items (each on its scale)",
    )
    score = serializers.IntegerField(
        required=False,
        help_text='legacy: {"overall": score}, only for a study whose only item is overall',
    )
    response_ms = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        help_text="ms from the rating screen's first appearance to the submit (client clock)",
    )
    position = serializers.IntegerField(
        help_text="the scenario's number in the session as shown on the screen (1-based)"
    )
    idempotency_key = serializers.CharField(
        min_length=8, max_length=100, help_text="client-generated (e.g. a UUID); retries reuse it"
    )


class ResearcherRateSerializer(RateSerializer):
    scenario = serializers.IntegerField(
        required=False, help_text="optional: the scenario id the researcher believes is rated"
    )


class QuestionnaireSerializer(serializers.Serializer[Any]):
    consent = serializers.BooleanField(required=False, help_text="required until given once")
    age = serializers.IntegerField(required=False, help_text="required when not known yet")
    skill = serializers.ChoiceField(choices=Skill.choices, required=False)
    genre_preference = serializers.BooleanField(
        help_text="does the participant favour games of this game's genre?"
    )
    answers = serializers.DictField(required=False, help_text="{question key: answer}")


class PostQuestionsSerializer(serializers.Serializer[Any]):
    answers = serializers.DictField(help_text="{question key: answer}")


class ReasonSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500)


class RateResponseSerializer(serializers.Serializer[Any]):
    rating = RatingSerializer()
    created = serializers.BooleanField()
    session = SessionSerializer()
