from __future__ import annotations

from rest_framework import serializers

from qoelab.core.background_jobs import RUN_STATE_FIELDS
from qoelab.exports.models import ImportJob


class ImportJobSerializer(serializers.ModelSerializer[ImportJob]):
    class Meta:
        model = ImportJob
        fields = [
            "id",
            "study",
            "file_name",
            "file_sha256",
            "file_bytes",
            "rows_total",
            "rows_done",
            "state",
            "progress",
            "stage",
            "sessions",
            "ratings",
            "participants_created",
            "error",
            "error_line",
            "error_column",
            *RUN_STATE_FIELDS,
        ]
        read_only_fields = fields
