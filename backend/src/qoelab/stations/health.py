"""Station health: can the backend reach and use the station's agent?"""

from __future__ import annotations

from django.utils import timezone

from qoelab.stations.agent_client import AgentClient, AgentError
from qoelab.stations.models import Station


def check_station(station: Station) -> Station:
    """Ask the agent for its health and capabilities (with the token); store the result."""
    client = AgentClient.for_station(station)
    try:
        health = client.health()
        capabilities = client.capabilities()
    except AgentError as exc:
        station.last_check_ok = False
        station.last_check_message = str(exc)
    else:
        present = capabilities.get("configured_interfaces_present") or {}
        missing = sorted(name for name, ok in present.items() if not ok)
        station.agent_capabilities = capabilities
        if missing:
            station.last_check_ok = False
            station.last_check_message = (
                f"the agent's configured interfaces are missing: {', '.join(missing)}"
            )
        else:
            station.last_check_ok = True
            station.last_check_message = (
                f"agent {health.get('version', '?')} answering, backend "
                f"{capabilities.get('backend', health.get('backend', '?'))}"
            )
    station.last_checked_at = timezone.now()
    station.save(
        update_fields=[
            "last_check_ok",
            "last_check_message",
            "last_checked_at",
            "agent_capabilities",
        ]
    )
    return station
