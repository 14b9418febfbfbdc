"""Non-blocking warnings on a scenario's profile, answered by the scenario API.

One rule (issue 35): jitter on 0 ms delay. netem draws each packet's delay from the jitter
distribution around the configured delay and sends a draw below 0 ms at once, so jitter
``j`` on 0 ms delay is clipped to one side: it only adds delay (about half the packets
leave unjittered), not ± ``j``. The agent accepts it (a common level of a grid design), so
the API stores it and says so instead of refusing.
"""

from __future__ import annotations

from typing import Any, TypedDict

from rest_framework import serializers

from qoelab.studies.models import Scenario

__all__ = [
    "WARNINGS_HELP",
    "ScenarioWarning",
    "ScenarioWarningSerializer",
    "profile_warnings",
    "scenario_warnings",
]

WARNINGS_HELP = (
    "Stored, but worth a look (non-blocking): jitter_without_delay (jitter on 0 ms delay "
    "is one-sided in netem)."
)

DIRECTIONS = {"upstream": "us", "downstream": "ds"}


class ScenarioWarning(TypedDict):
    code: str
    where: str
    message: str


def profile_warnings(direction: str, profile: dict[str, Any]) -> list[ScenarioWarning]:
    """The warnings of one direction's profile (``upstream`` or ``downstream``)."""
    jitter = float(profile.get("jitter_ms") or 0.0)
    delay = float(profile.get("delay_ms") or 0.0)
    if jitter <= 0.0 or delay != 0.0:
        return []
    return [
        {
            "code": "jitter_without_delay",
            "where": f"{direction}.jitter_ms",
            "message": (
                f"{direction}: jitter {jitter:g} ms on 0 ms delay; netem sends the packets "
                "whose draw falls below 0 ms at once, so the jitter only adds delay (not "
                f"± {jitter:g} ms). Set a delay of at least the jitter for jitter around a delay."
            ),
        }
    ]


def scenario_warnings(scenario: Scenario) -> list[ScenarioWarning]:
    """Every warning of a stored scenario, upstream first."""
    return [
        warning
        for direction, prefix in DIRECTIONS.items()
        for warning in profile_warnings(direction, scenario.direction(prefix))
    ]


class ScenarioWarningSerializer(serializers.Serializer[ScenarioWarning]):
    """A warning's API shape (read-only)."""

    code = serializers.CharField()
    where = serializers.CharField(help_text="the field, e.g. downstream.jitter_ms")
    message = serializers.CharField()
