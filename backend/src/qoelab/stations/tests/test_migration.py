"""The ownership migration: stations from before it stay usable by every researcher
(shared) and, having no owner, may be changed by staff only."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient


def migrate(target: tuple[str, str]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


@pytest.mark.django_db(transaction=True)
def test_existing_stations_become_shared_without_owner(researcher: Any) -> None:
    old = migrate(("stations", "0001_initial"))
    old.get_model("stations", "Station").objects.create(
        name="Seat 1", agent_url="http://127.0.0.1:9", agent_token="t" * 20
    )
    new = migrate(("stations", "0002_station_owner_shared"))
    station = new.get_model("stations", "Station").objects.get()
    assert (station.owner_id, station.shared) == (None, True)
    call_command("migrate", verbosity=0)  # the API below uses the current model

    client = APIClient()
    client.force_authenticate(researcher)
    listed = client.get("/api/v1/stations/").json()
    assert [(s["name"], s["owner"], s["shared"], s["can_change"]) for s in listed] == [
        ("Seat 1", None, True, False)
    ]
    assert client.patch(f"/api/v1/stations/{station.pk}/", {"notes": "x"}).status_code == 403
