from __future__ import annotations

from rest_framework import serializers

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
            "attempts",
            "worker",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields
