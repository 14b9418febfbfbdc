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
        parser.add_argument(
            "--if-absent",
            action="store_true",
            help="leave an existing account (and its password) as it is",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username, password = options["username"], options["password"]
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=username, defaults={"is_staff": True}
        )
        if not created and options["if_absent"]:
            # A second `make demo` keeps a password the researcher chose.
            if user.check_password(password):
                self.stdout.write(
                    f"Demo researcher login: username {username!r}, password {password!r}"
                )
            else:
                self.stdout.write(
                    f"Demo researcher login: username {username!r} with the password you "
                    "set (`make demo-reset` starts afresh)"
                )
            return
        user.is_staff = True
        user.set_password(password)
        user.save()
        verb = "Created" if created else "Reset"
        self.stdout.write(
            f"{verb} demo researcher login: username {username!r}, password {password!r}"
        )
