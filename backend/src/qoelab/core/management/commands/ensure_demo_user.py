"""``manage.py ensure_demo_user`` — the researcher account of ``make demo``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Create (or reset the password of) the demo researcher account and print its login."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="researcher")
        parser.add_argument("--password", default="qoelab-demo")

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=options["username"], defaults={"is_staff": True}
        )
        user.is_staff = True
        user.set_password(options["password"])
        user.save()
        verb = "Created" if created else "Reset"
        self.stdout.write(
            f"{verb} demo researcher login: username {options['username']!r}, "
            f"password {options['password']!r}"
        )
