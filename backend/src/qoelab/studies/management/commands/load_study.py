"""``manage.py load_study FILE [--owner USERNAME] [--if-absent]`` — load (or re-sync) a study
document; with ``--if-absent`` a study that already has the document's slug is left as it is
(``make demo`` must not undo a researcher's edits of the example study)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qoelab.studies.models import Study
from qoelab.studies.study_document import (
    StudyDocumentError,
    load_study_document,
    read_study_document,
)


class Command(BaseCommand):
    help = "Load a study document (qoelab.study/v1 JSON) such as fixtures/studies/*.json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the study document to load")
        parser.add_argument(
            "--owner",
            metavar="USERNAME",
            help="make this (existing) user the study's owner; without it the owner is kept "
            "(a study without owner is open to every staff user)",
        )
        parser.add_argument(
            "--if-absent",
            action="store_true",
            help="leave a study with the document's slug unchanged instead of re-syncing it",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        owner = None
        if options["owner"]:
            try:
                owner = get_user_model().objects.get(username=options["owner"])
            except get_user_model().DoesNotExist as exc:
                raise CommandError(
                    f"--owner {options['owner']!r}: no such user "
                    "(create it first, e.g. with `manage.py ensure_demo_user`)"
                ) from exc
        try:
            document = read_study_document(options["path"])
            if options["if_absent"] and Study.objects.filter(slug=document["slug"]).exists():
                self.stdout.write(f"Study {document['slug']!r} exists: kept as it is.")
                return
            result = load_study_document(document, owner=owner)
        except StudyDocumentError as exc:
            raise CommandError(str(exc)) from exc
        study = result.study
        state = "created" if result.created else ("updated" if result.changed else "unchanged")
        version = f" (version {study.version})" if study.version > 1 else ""
        self.stdout.write(
            f"Study {study.slug!r} {state}: {study.games.count()} games, "
            f"{study.active_scenarios().count()} scenarios{version}."
        )
        if owner is not None:
            self.stdout.write(f"Owner: {owner.get_username()!r}.")
