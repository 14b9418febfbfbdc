"""Station health: can the backend reach and use the station's agent?

* :func:`check_station` asks the agent for its health and capabilities;
* :func:`apply_baseline` goes one step further and has the agent install the neutral
  profile (no impairment) with a short lease, verified by the agent's read-back.

Both store their outcome on the station (``last_check_ok``, ``last_check_message``,
``last_checked_at``), which the console shows as the station's health light.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from qoelab.core.errors import BadGateway
from qoelab.stations.access import ensure_not_busy
from qoelab.stations.agent_client import (
    DIRECTIONS,
    SCENARIO_FIELDS,
    AgentClient,
    AgentError,
    AppliedState,
)
from qoelab.stations.capabilities import health_version, validate_capabilities
from qoelab.stations.models import Station

#: Lease of the test profile: the agent restores the interfaces by itself when it ends.
BASELINE_LEASE_SECONDS = 10.0


class BaselineFailed(BadGateway):
    """The agent could not apply or verify the test profile (502)."""


def neutral_profile() -> dict[str, dict[str, float]]:
    """The baseline of the test: no delay, jitter or loss in either direction."""
    return {direction: dict.fromkeys(SCENARIO_FIELDS, 0.0) for direction in DIRECTIONS}


def _store(station: Station, ok: bool, message: str, **extra: Any) -> None:
    station.last_check_ok = ok
    station.last_check_message = message
    station.last_checked_at = timezone.now()
    for field, value in extra.items():
        setattr(station, field, value)
    station.save(update_fields=["last_check_ok", "last_check_message", "last_checked_at", *extra])


def check_station(station: Station) -> Station:
    """Ask the agent for its health and capabilities (with the token); store the result.

    Only a valid capabilities document (:mod:`qoelab.stations.capabilities`) is stored; any
    other answer fails the check and clears the stored capabilities, so the console never
    shows what a foreign listener sent. Callers check access and that no session holds the
    station (:mod:`qoelab.stations.access`).
    """
    client = AgentClient.for_station(station)
    try:
        version = health_version(client.health())
        capabilities = validate_capabilities(client.capabilities())
    except AgentError as exc:
        _store(station, False, str(exc), agent_capabilities=None)
        return station
    present = capabilities.get("configured_interfaces_present") or {}
    missing = sorted(name for name, ok in present.items() if not ok)
    if missing:
        ok = False
        message = f"the agent's configured interfaces are missing: {', '.join(missing)}"
    else:
        ok = True
        message = f"agent {version} answering, backend {capabilities['backend']}"
    _store(station, ok, message, agent_capabilities=capabilities)
    return station


def apply_baseline(station: Station) -> AppliedState:
    """Install the neutral profile at the station's agent and verify the read-back.

    Refused (:class:`~qoelab.stations.access.StationBusy`) while a session holds the
    station: the test would replace the session's impairment. The profile carries a lease of
    :data:`BASELINE_LEASE_SECONDS`, so the agent restores the interfaces soon by itself;
    a session that starts meanwhile clears or replaces it as it always does. Agent
    failures (unreachable, refused, a different state read back) are stored on the
    station and raised as :class:`BaselineFailed` (from the client's :class:`AgentError`).
    """
    ensure_not_busy(station, "a test profile would replace its impairment")
    try:
        applied = AgentClient.for_station(station).apply(neutral_profile(), BASELINE_LEASE_SECONDS)
    except AgentError as exc:
        _store(station, False, f"test profile (no impairment) failed: {exc}")
        raise BaselineFailed(
            f"The agent of station {station.name!r} could not apply the test profile: {exc}"
        ) from exc
    backend = f", backend {applied.backend}" if applied.backend else ""
    done = (
        "applied and read back by the agent"
        if applied.kernel_read_back
        else "recorded by the agent (nothing was applied to a kernel)"
    )
    _store(
        station,
        True,
        f"test profile (no impairment) {done}{backend}; "
        f"its {BASELINE_LEASE_SECONDS:g} s lease ends it",
    )
    return applied
