"""Session.ended_at: when a session completed or was aborted (issue 34, participant tokens
expire QOELAB_PARTICIPANT_TOKEN_DAYS after it). Sessions that ended before take their
completion time, else their last change (an aborted session recorded no end)."""

from typing import Any

from django.db import migrations, models
from django.db.models.functions import Coalesce


def backfill(apps: Any, schema_editor: Any) -> None:
    Session = apps.get_model("runs", "Session")
    Session.objects.filter(state__in=["completed", "aborted"], ended_at__isnull=True).update(
        ended_at=Coalesce("completed_at", "updated_at")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0003_session_data_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="session",
            name="ended_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
