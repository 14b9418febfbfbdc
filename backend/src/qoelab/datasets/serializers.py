"""The dataset import's API shapes: the job (as the CSV import's job, plus what a dataset
adds), a problem, and the describe answer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from qoelab.core.background_jobs import RUN_STATE_FIELDS
from qoelab.datasets.models import DatasetJob


class ProblemSerializer(serializers.Serializer[dict[str, Any]]):
    """One problem of a dataset: where it is, the value found, the rule it breaks."""

    file = serializers.CharField(allow_null=True, help_text="a data file, or the descriptor")
    line = serializers.IntegerField(allow_null=True, help_text="1-based; the header is line 1")
    column = serializers.CharField(allow_null=True, help_text="the column (the field's name)")
    value = serializers.CharField(allow_null=True)
    rule = serializers.CharField()


class RefusalSerializer(serializers.Serializer[dict[str, Any]]):
    detail = serializers.CharField()
    problems = ProblemSerializer(many=True)
    more = serializers.IntegerField(help_text="problems found beyond those listed")


_WARNING_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "code": {"type": "string"},
            "message": {"type": "string"},
            "where": {"type": "string"},
        },
        "required": ["code", "message", "where"],
    },
}


class DatasetJobSerializer(serializers.ModelSerializer[DatasetJob]):
    """A dataset import job: the fields of a CSV import job (``/import-jobs/``) with
    ``kind: "dataset"``; ``study`` is the new study once it has succeeded."""

    kind = serializers.SerializerMethodField()
    file_name = serializers.SerializerMethodField()
    file_sha256 = serializers.CharField(source="digest", read_only=True)
    error_line = serializers.SerializerMethodField()
    error_column = serializers.SerializerMethodField()
    problems = ProblemSerializer(many=True, read_only=True)
    warnings = serializers.JSONField(source="dataset_warnings", read_only=True)
    summary = serializers.JSONField(
        read_only=True,
        allow_null=True,
        help_text="how the data was read: the analysis document's meta.dataset",
    )

    class Meta:
        model = DatasetJob
        fields = [
            "id",
            "kind",
            "study",
            "title",
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
            "scenarios",
            "error",
            "error_line",
            "error_column",
            "problems",
            "more",
            "summary",
            "warnings",
            *RUN_STATE_FIELDS,
        ]
        read_only_fields = fields

    @extend_schema_field({"type": "string", "enum": ["dataset"]})
    def get_kind(self, job: DatasetJob) -> str:
        return "dataset"

    @extend_schema_field(serializers.CharField())
    def get_file_name(self, job: DatasetJob) -> str:
        """The data files' names, as uploaded, comma-separated."""
        return ", ".join(str(f.get("name", "")) for f in job.files)

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_error_line(self, job: DatasetJob) -> int | None:
        return job.problems[0].get("line") if job.problems else None

    @extend_schema_field(serializers.CharField())
    def get_error_column(self, job: DatasetJob) -> str:
        return str(job.problems[0].get("column") or "") if job.problems else ""


class DatasetJobAnswerSerializer(serializers.Serializer[dict[str, Any]]):
    job = DatasetJobSerializer()


class ColumnSerializer(serializers.Serializer[dict[str, Any]]):
    """A column of an uploaded file: what its cells are, the role the draft gives it."""

    file = serializers.CharField()
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["string", "integer", "number", "boolean"])
    distinct = serializers.IntegerField()
    missing = serializers.IntegerField()
    role = serializers.CharField()
    why = serializers.CharField()


class SampleSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.CharField()
    rows_read = serializers.IntegerField()
    complete = serializers.BooleanField(help_text="false: only the file's first records")


class DescribeSerializer(serializers.Serializer[dict[str, Any]]):
    descriptor = serializers.JSONField(help_text="the draft descriptor (docs/importing-data.md)")
    columns = ColumnSerializer(many=True)
    notes = serializers.ListField(child=serializers.CharField(), help_text="what is left to settle")
    files = SampleSerializer(many=True)
