"""``manage.py ensure_station --name NAME --agent-url URL (--token-file F | --token T)
[--owner USERNAME] [--shared]``.

``--owner`` names the researcher who may change the station (without it: staff only);
``--shared`` lets every researcher run sessions on it. An existing station without owner
is given the ``--owner`` (so a demo database from before station ownership is adopted).

With ``--if-absent`` an existing station keeps its settings (``make demo`` run again must
not undo a researcher's edits), except one: when its agent URL is still the one given as
``--previous-agent-url`` (the demo agent's address last time), it follows the agent to
``--agent-url`` and the command says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ObjectDoesNotExist
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
        parser.add_argument(
            "--owner",
            metavar="USERNAME",
            help="the researcher who owns the station (may change it); without: staff only",
        )
        parser.add_argument(
            "--shared",
            action="store_true",
            help="every researcher may run sessions on the station (only the owner changes it)",
        )
        parser.add_argument("--check", action="store_true", help="also check the agent's health")
        parser.add_argument(
            "--if-absent",
            action="store_true",
            help="create the station only if none has this name; an existing one is kept",
        )
        parser.add_argument(
            "--previous-agent-url",
            metavar="URL",
            help="with --if-absent: an existing station still bound to URL moves to --agent-url",
        )

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
        owner = self._owner(options["owner"])
        defaults: dict[str, Any] = {
            "agent_url": url,
            "agent_token": token,
            "topology": options["topology"],
        }
        if owner is not None:
            defaults["owner"] = owner
        if options["shared"]:
            defaults["shared"] = True
        if options["if_absent"]:
            station, created = Station.objects.get_or_create(
                name=options["name"], defaults=defaults
            )
            if not created:
                self._keep(station, url, options["previous_agent_url"])
                if owner is not None and station.owner_id is None:
                    station.owner = owner
                    station.save(update_fields=["owner"])
                    self.stdout.write(f"Station {station.name!r}: owner set to {owner}")
        else:
            station, created = Station.objects.update_or_create(
                name=options["name"], defaults=defaults
            )
        if created or not options["if_absent"]:
            verb = "Created" if created else "Updated"
            self.stdout.write(f"{verb} station {station.name!r} (id {station.pk}) → agent {url}")
        if options["check"]:
            check_station(station)
            state = "ok" if station.last_check_ok else "NOT ok"
            self.stdout.write(f"Agent health: {state} — {station.last_check_message}")

    def _owner(self, username: str | None) -> Any:
        if username is None:
            return None
        try:
            return get_user_model().objects.get_by_natural_key(username)
        except ObjectDoesNotExist:
            raise CommandError(f"--owner: no user {username!r}") from None

    def _keep(self, station: Station, url: str, previous: str | None) -> None:
        """Keep an existing station; move it to ``url`` only if it is still at ``previous``."""
        if station.agent_url == url:
            self.stdout.write(f"Station {station.name!r} (id {station.pk}) kept → agent {url}")
        elif previous is not None and station.agent_url == previous.rstrip("/"):
            station.agent_url = url
            station.save(update_fields=["agent_url"])
            self.stdout.write(
                f"Station {station.name!r} (id {station.pk}): the agent moved from "
                f"{previous.rstrip('/')} to {url}; agent URL updated"
            )
        else:
            self.stdout.write(
                f"Station {station.name!r} (id {station.pk}) kept → agent "
                f"{station.agent_url} (set by you; not changed to {url})"
            )
