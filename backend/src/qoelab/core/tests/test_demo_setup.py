"""The ``--if-absent`` set-up commands of ``make demo`` (scripts/demo.sh): run again, they
keep the researcher's edits (study, password, station) — except that a station still bound
to the demo agent's previous address follows the agent to its new one."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from qoelab.stations.models import Station
from qoelab.studies.models import Study

EXAMPLE = settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json"
TOKEN = "demo-token-not-secret-0001"


def station(url: str, previous: str, capsys: pytest.CaptureFixture[str]) -> str:
    call_command(
        "ensure_station",
        "--name",
        "Seat 1",
        "--agent-url",
        url,
        f"--token={TOKEN}",
        "--if-absent",
        "--previous-agent-url",
        previous,
    )
    return capsys.readouterr().out.strip()


@pytest.mark.django_db
def test_load_study_if_absent_keeps_an_edited_study(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("load_study", str(EXAMPLE), "--if-absent")
    Study.objects.filter(slug="cloud-gaming-2014").update(title="Edited")
    capsys.readouterr()
    call_command("load_study", str(EXAMPLE), "--if-absent")
    assert capsys.readouterr().out.strip() == "Study 'cloud-gaming-2014' exists: kept as it is."
    assert Study.objects.get(slug="cloud-gaming-2014").title == "Edited"
    call_command("load_study", str(EXAMPLE))  # without the flag: re-synced, as before
    assert Study.objects.get(slug="cloud-gaming-2014").title != "Edited"


@pytest.mark.django_db
def test_ensure_demo_user_if_absent_keeps_a_changed_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call_command("ensure_demo_user", "--if-absent")
    assert "Created demo researcher login" in capsys.readouterr().out
    call_command("ensure_demo_user", "--if-absent")
    assert capsys.readouterr().out.strip() == (
        "Demo researcher login: username 'researcher', password 'qoelab-demo'"
    )
    user = get_user_model().objects.get(username="researcher")
    user.set_password("my-own-password-42")
    user.save()
    call_command("ensure_demo_user", "--if-absent")
    assert "with the password you set" in capsys.readouterr().out
    assert get_user_model().objects.get(username="researcher").check_password("my-own-password-42")


@pytest.mark.django_db
def test_ensure_station_if_absent_follows_only_the_demo_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first, second, third = (f"http://127.0.0.1:{port}" for port in (8787, 8788, 8789))
    assert station(first, first, capsys).startswith("Created station 'Seat 1'")
    Station.objects.filter(name="Seat 1").update(notes="bench by the window")

    assert "kept → agent http://127.0.0.1:8787" in station(first, first, capsys)
    moved = station(second, first, capsys)
    assert f"the agent moved from {first} to {second}; agent URL updated" in moved
    seat = Station.objects.get(name="Seat 1")
    assert (seat.agent_url, seat.notes) == (second, "bench by the window")

    # A station the researcher pointed elsewhere stays there.
    Station.objects.filter(name="Seat 1").update(agent_url="http://10.0.0.5:8787")
    kept = station(third, second, capsys)
    assert "kept → agent http://10.0.0.5:8787" in kept
    assert Station.objects.get(name="Seat 1").agent_url == "http://10.0.0.5:8787"


@pytest.mark.django_db
def test_a_token_that_starts_with_a_dash_is_taken_as_the_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Random url-safe tokens start with "-" one time in 64: callers pass --token=VALUE."""
    call_command(
        "ensure_station",
        "--name",
        "Seat 9",
        "--agent-url",
        "http://127.0.0.1:9",
        "--token=-GHy2K5IYpwM70Vogvvwgb9JgGf",
    )
    station = Station.objects.get(name="Seat 9")
    assert station.agent_token == "-GHy2K5IYpwM70Vogvvwgb9JgGf"
