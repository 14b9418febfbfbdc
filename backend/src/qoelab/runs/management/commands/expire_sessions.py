"""``manage.py expire_sessions`` — clear impairments of sessions paused for too long."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from qoelab.runs import services


class Command(BaseCommand):
    help = (
        "Clear the impairment of sessions paused longer than QOELAB_PAUSE_TIMEOUT_SECONDS and "
        "renew the leases of running sessions (what Celery beat does periodically)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        expired = services.expire_sessions()
        ticked = services.heartbeat_all()
        self.stdout.write(
            f"{len(expired)} paused session(s) cleared, {ticked} running session(s) renewed."
        )
