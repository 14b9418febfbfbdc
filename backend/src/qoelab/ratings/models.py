"""Ratings and questionnaire answers: what a participant said, with what was played."""

from __future__ import annotations

from django.db import models

from qoelab.runs.models import Session
from qoelab.studies.models import Scenario


class Rating(models.Model):
    # No index of its own: the unique constraints below lead with session_id, so their
    # btrees serve every lookup by session; a separate one only cost the import (issue 16).
    session = models.ForeignKey(
        Session, on_delete=models.CASCADE, related_name="ratings", db_index=False
    )
    #: The (immutable) scenario row that was played.
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="ratings")
    #: Index of the scenario in the session's order, and its round (2 = retest).
    order_index = models.PositiveIntegerField()
    round = models.PositiveSmallIntegerField(default=1)
    #: {item key: value} on the study's rating items' scales (an optional item may be absent).
    values = models.JSONField(default=dict)
    #: A rating of the training phase: exported (marked), never analysed.
    training = models.BooleanField(default=False)
    #: "scenario", or an ITU-T P.808 check: "trap" (an instructed response, no play) or
    #: "hidden_reference" (a scenario's unannounced repeat); checks never enter a MOS.
    kind = models.CharField(max_length=20, default="scenario", db_default="scenario")
    #: Client-measured: rating screen first shown -> submit (ms; survives a reload).
    response_ms = models.PositiveIntegerField(null=True, blank=True)
    #: Server-measured: rated_at - scenario_ended_at (ms).
    since_end_ms = models.PositiveIntegerField(null=True, blank=True)
    scenario_started_at = models.DateTimeField(null=True, blank=True)
    scenario_ended_at = models.DateTimeField(null=True, blank=True)
    rated_at = models.DateTimeField()
    #: The impairment the agent reported as installed during play ({"upstream": {...}, ...}).
    applied_profile = models.JSONField()
    #: Where the impairment came from: {"backend", "agent_version", "kernel",
    #: "verified_at"} copied from the session when rated; {"backend": "import"} for an
    #: imported rating without provenance columns.
    provenance = models.JSONField(default=dict)
    idempotency_key = models.CharField(max_length=100)
    #: "participant", "researcher" or "import".
    source = models.CharField(max_length=20)

    class Meta:
        ordering = ["session", "order_index"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "order_index"], name="one_rating_per_scenario_slot"
            ),
            models.UniqueConstraint(
                fields=["session", "idempotency_key"], name="rating_idempotency_key_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}/{self.scenario_id}: {self.values}"


class Answer(models.Model):
    """An answer to a question of the study's questionnaire (``phase`` pre or post)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="answers")
    phase = models.CharField(max_length=10)
    key = models.CharField(max_length=60)
    value = models.JSONField()
    answered_at = models.DateTimeField()

    class Meta:
        ordering = ["session", "id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "key"], name="one_answer_per_question"),
        ]
