"""``manage.py ensure_station --name NAME --agent-url URL (--token-file F | --token T)``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from qoelab.stations.health import check_station
from qoelab.stations.models import Station


class Command(BaseCommand):
    help = "Create or update a station bound to a netem agent (e.g. the demo's dry-run agent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True)
        parser.add_argument("--agent-url", required=True)
        token = parser.add_mutually_exclusive_group(required=True)
        token.add_argument("--token-file", type=Path)
        token.add_argument("--token")
        parser.add_argument("--topology", default="")
        parser.add_argument("--check", action="store_true", help="also check the agent's health")

    def handle(self, *args: Any, **options: Any) -> None:
        url = options["agent_url"].rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise CommandError("--agent-url must start with http:// or https://")
        if options["token_file"] is not None:
            try:
                token = options["token_file"].read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise CommandError(f"--token-file: {exc}") from exc
        else:
            token = options["token"].strip()
        if len(token) < 16:
            raise CommandError("the agent token must be at least 16 characters")
        station, created = Station.objects.update_or_create(
            name=options["name"],
            defaults={"agent_url": url, "agent_token": token, "topology": options["topology"]},
        )
        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} station {station.name!r} (id {station.pk}) → agent {url}")
        if options["check"]:
            check_station(station)
            state = "ok" if station.last_check_ok else "NOT ok"
            self.stdout.write(f"Agent health: {state} — {station.last_check_message}")
