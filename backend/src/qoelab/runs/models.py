"""Sessions: one participant playing one game at one station through every scenario."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from qoelab.core.counters import save_kwargs_without
from qoelab.participants.models import Participant
from qoelab.runs.state_machine import ACTIVE_STATES, FINAL_STATES, State
from qoelab.stations.models import Station
from qoelab.studies.models import Game, Scenario, Study

#: ``Session.order_policy`` of a session imported from a dataset (qoelab.datasets).
DATASET_ORDER = "dataset"


def new_token() -> str:
    return secrets.token_urlsafe(24)


class Session(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="sessions")
    study_version = models.PositiveIntegerField()
    participant = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="sessions")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="sessions")
    station = models.ForeignKey(
        Station, null=True, blank=True, on_delete=models.PROTECT, related_name="sessions"
    )
    state = models.CharField(max_length=20, choices=State.choices, default=State.CREATED)
    #: Increases with every change a screen should show (the polling clients compare it).
    revision = models.PositiveIntegerField(default=1)
    #: Bumped (``F() + 1``, under the row lock, in the writing transaction) with every change
    #: of this session's part of the analysed data: a rating recorded, the session completed.
    #: The results cache's data version is the study's counter plus the sum of these
    #: (:mod:`qoelab.studies.data_version`), so that the ratings of a study's live sessions
    #: never wait for one another on the study row.
    data_version = models.PositiveIntegerField(default=0, db_default=0, editable=False)
    paused_from = models.CharField(max_length=20, choices=State.choices, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    #: For the researcher: why the session paused or what the agent said.
    message = models.TextField(blank=True)

    # The order, fixed at creation: [{"scenario": id, "code": "D1", "round": 1}, ...]
    order_policy = models.CharField(max_length=20)
    seed = models.BigIntegerField()
    latin_square_row = models.PositiveIntegerField(null=True, blank=True)
    order = models.JSONField()
    current_index = models.PositiveIntegerField(default=0)

    # Timers (server clock): the current free-play period or scenario.
    step_started_at = models.DateTimeField(null=True, blank=True)
    scenario_started_at = models.DateTimeField(null=True, blank=True)
    scenario_ended_at = models.DateTimeField(null=True, blank=True)

    # The agent: the verified installed state of the current scenario.
    applied_profile = models.JSONField(null=True, blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    #: Provenance of the applied scenario: the agent's backend ("netlink", "dry-run"),
    #: its version and its kernel document (a read-back, or the dry-run's recording).
    applied_backend = models.CharField(max_length=20, blank=True)
    applied_agent_version = models.CharField(max_length=40, blank=True)
    applied_kernel = models.JSONField(null=True, blank=True)
    #: When the agent's kernel read-back verified the scenario (None for a dry-run).
    applied_verified_at = models.DateTimeField(null=True, blank=True)
    lease_renewed_at = models.DateTimeField(null=True, blank=True)
    impairment_cleared_at = models.DateTimeField(null=True, blank=True)

    token = models.CharField(max_length=64, unique=True, default=new_token)
    imported = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    #: When the session reached a final state (completed or aborted), set by :meth:`save`;
    #: the participant token expires ``QOELAB_PARTICIPANT_TOKEN_DAYS`` later
    #: (:meth:`token_expires_at`).
    ended_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            # A dataset's rater may have played a game in several sessions (imported by
            # qoelab.datasets with this order policy); a lab participant plays it once.
            models.UniqueConstraint(
                fields=["participant", "game"],
                condition=~models.Q(state=State.ABORTED) & ~models.Q(order_policy=DATASET_ORDER),
                name="one_live_session_per_participant_and_game",
            ),
            models.UniqueConstraint(
                fields=["station"],
                condition=models.Q(state__in=sorted(ACTIVE_STATES)),
                name="one_active_session_per_station",
            ),
            models.CheckConstraint(
                condition=models.Q(state__in=State.values), name="session_state_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"session {self.pk} ({self.participant} / {self.game})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, but never write ``data_version`` back from memory on an update.

        The counter only moves by ``F("data_version") + 1``
        (:func:`qoelab.runs.services.transitions.bump_session_data_version`); a full
        ``save()`` of a session loaded before a concurrent bump would otherwise put the old
        value back, and the analysis cache could serve a document of older data.
        """
        self._record_end(kwargs)
        save_kwargs_without(self, "data_version", kwargs)
        super().save(*args, **kwargs)

    def _record_end(self, kwargs: dict[str, Any]) -> None:
        """Stamp ``ended_at`` when a save writes a final state for the first time: every
        end (complete, abort) goes through a save of the row, so the moment is recorded
        without each caller having to."""
        if self.state not in FINAL_STATES or self.ended_at is not None:
            return
        self.ended_at = timezone.now()
        fields = kwargs.get("update_fields")
        if fields is not None and "ended_at" not in fields:
            kwargs["update_fields"] = [*fields, "ended_at"]

    def token_expires_at(self) -> datetime | None:
        """When the participant token stops opening this session: ``QOELAB_PARTICIPANT_TOKEN_DAYS``
        (default 7) after the session ended; None while it has not ended (a running
        session's token never expires). A row written without :meth:`save` (an import's
        bulk insert) ended when it was completed; failing that, at its last change."""
        if self.state not in FINAL_STATES:
            return None
        ended = self.ended_at or self.completed_at or self.updated_at
        return ended + timedelta(days=settings.QOELAB_PARTICIPANT_TOKEN_DAYS)

    def token_expired(self, now: datetime) -> bool:
        expires = self.token_expires_at()
        return expires is not None and now >= expires

    @property
    def scenario_count(self) -> int:
        return len(self.order)

    def order_entry(self, index: int | None = None) -> dict[str, Any] | None:
        i = self.current_index if index is None else index
        return self.order[i] if 0 <= i < len(self.order) else None

    def current_scenario(self) -> Scenario | None:
        entry = self.order_entry()
        return None if entry is None else Scenario.objects.get(pk=entry["scenario"])
