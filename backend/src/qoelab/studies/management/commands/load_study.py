"""``manage.py load_study FILE`` — load (or re-sync) a study document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from qoelab.studies.study_document import (
    StudyDocumentError,
    load_study_document,
    read_study_document,
)


class Command(BaseCommand):
    help = "Load a study document (qoelab.study/v1 JSON) such as fixtures/studies/*.json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the study document to load")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            document = read_study_document(options["path"])
            result = load_study_document(document)
        except StudyDocumentError as exc:
            raise CommandError(str(exc)) from exc
        study = result.study
        state = "created" if result.created else ("updated" if result.changed else "unchanged")
        self.stdout.write(
            f"Study {study.slug!r} {state}: {study.games.count()} games, "
            f"{study.scenarios.count()} scenarios."
        )
