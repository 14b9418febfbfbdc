from __future__ import annotations

from typing import Any

from rest_framework import serializers

from qoelab.analysis_jobs.models import AnalysisJob
from qoelab.core.background_jobs import RUN_STATE_FIELDS


class AnalysisJobSerializer(serializers.ModelSerializer[AnalysisJob]):
    # A JSON column: declared as a list of strings so that the OpenAPI schema says so.
    warnings = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = AnalysisJob
        fields = [
            "id",
            "study",
            "study_version",
            "data_version",
            "reliable_only",
            "input_sha256",
            "input_rows",
            "state",
            "progress",
            "stage",
            "result",
            "error",
            "warnings",
            *RUN_STATE_FIELDS,
        ]
        read_only_fields = fields


class AnalysisRequestSerializer(serializers.Serializer[Any]):
    reliable_only = serializers.BooleanField(
        default=False, help_text="analyse only raters passing the intra-rater reliability rule"
    )
