from __future__ import annotations

from typing import Any

from rest_framework import serializers

from qoelab.analysis_jobs.models import (
    DEFAULT_MIN_RELIABLE_RATERS,
    DEFAULT_MIN_RELIABLE_SHARE,
    AnalysisJob,
)
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
            "min_reliable_raters",
            "min_reliable_share",
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
    min_reliable_raters = serializers.IntegerField(
        default=DEFAULT_MIN_RELIABLE_RATERS,
        min_value=1,
        max_value=10_000,
        help_text=(
            "with reliable_only: fewer reliable raters than this refuses the analysis (the job "
            "fails, its error says how many were found)"
        ),
    )
    min_reliable_share = serializers.FloatField(
        default=DEFAULT_MIN_RELIABLE_SHARE,
        min_value=0.0,
        max_value=1.0,
        help_text=(
            "with reliable_only: a smaller share of reliable raters than this (0..1) adds the "
            "warning few_reliable_raters to the document"
        ),
    )
