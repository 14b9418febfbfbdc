"""The researcher's sessions list: the sessions' current scenarios read in one query.

Each session stores its order as JSON (scenario ids), so the current scenario cannot be
joined or prefetched by the ORM; the list serializer reads all of them at once and hands
them to :class:`~qoelab.runs.serializers.SessionSerializer` through its context.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models.manager import BaseManager
from rest_framework import serializers

from qoelab.runs.models import Session
from qoelab.studies.models import Scenario

#: The context key of the current scenarios, by id.
CURRENT_SCENARIOS = "current_scenarios"


def current_scenario(session: Session, context: Mapping[str, Any]) -> Scenario:
    """The session's current scenario: from the list's one query, else read alone."""
    entry = session.order_entry()
    assert entry is not None
    known: dict[int, Scenario] | None = context.get(CURRENT_SCENARIOS)
    if known is not None and entry["scenario"] in known:
        return known[entry["scenario"]]
    return Scenario.objects.get(pk=entry["scenario"])


class SessionListSerializer(serializers.ListSerializer[Session]):
    """Sessions, each with its current scenario, in a constant number of queries."""

    def to_representation(self, data: Any) -> list[Any]:
        sessions = list(data.all() if isinstance(data, BaseManager) else data)
        ids = {entry["scenario"] for s in sessions if (entry := s.order_entry()) is not None}
        context = self.context  # the root's dict, which every child serializer reads
        assert isinstance(context, dict)
        context[CURRENT_SCENARIOS] = Scenario.objects.in_bulk(ids)
        return super().to_representation(sessions)
