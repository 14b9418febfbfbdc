"""``manage.py preflight`` — check configuration and services before serving.

Fails with one line that names the variable to fix (DATABASE_URL, CELERY_BROKER_URL),
never with a driver's stack trace.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from qoelab.core.health import broker_status, database_status


class Command(BaseCommand):
    help = "Check that the database and the Celery broker configured in the environment answer."

    def handle(self, *args: Any, **options: Any) -> None:
        database = database_status()
        if not database["ok"]:
            raise CommandError(
                f"DATABASE_URL: cannot connect to {database['target']}: {database['error']}. "
                "Point DATABASE_URL at a reachable database, or unset it to use the "
                "embedded SQLite file under var/."
            )
        self.stdout.write(f"database: {database['target']} ok")
        broker = broker_status()
        if not broker["ok"]:
            raise CommandError(
                f"CELERY_BROKER_URL: cannot reach {broker['url']}: {broker['error']}. "
                "Start the broker, or unset CELERY_BROKER_URL to run tasks in-process."
            )
        self.stdout.write(f"broker: {broker.get('url', broker['mode'])} ok")
