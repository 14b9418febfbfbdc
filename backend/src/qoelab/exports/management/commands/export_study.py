"""``manage.py export_study (--all | --study ID …) --output-dir DIR`` — files per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from qoelab.exports.backup import write_study_export
from qoelab.studies.models import Study


class Command(BaseCommand):
    help = (
        "Write each chosen study's design (study.json), tidy ratings (ratings.csv), full "
        "JSON export and sureal dataset into DIR/study-<id>-<slug>/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--all", action="store_true", help="every study")
        which.add_argument("--study", type=int, action="append", help="a study id (repeatable)")
        parser.add_argument("--output-dir", type=Path, required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        studies = Study.objects.order_by("pk")
        if not options["all"]:
            wanted = set(options["study"])
            studies = studies.filter(pk__in=wanted)
            missing = sorted(wanted - set(studies.values_list("pk", flat=True)))
            if missing:
                raise CommandError(f"no study with id {', '.join(map(str, missing))}")
        output_dir: Path = options["output_dir"]
        try:
            output_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"--output-dir {output_dir}: {exc.strerror}") from exc
        count = 0
        for study in studies:
            folder = write_study_export(study, output_dir)
            self.stdout.write(f"study {study.pk} ({study.slug}) → {folder}")
            count += 1
        self.stdout.write(f"exported {count} stud{'y' if count == 1 else 'ies'}")
