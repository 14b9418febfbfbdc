"""Import jobs: a ratings CSV imported in the background (:mod:`qoelab.exports.tasks`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from qoelab.analysis_jobs.models import JobState
from qoelab.studies.models import Study


class ImportJob(models.Model):
    """One submitted ratings file. Submitting the same file (SHA-256) to the same study again
    returns this job while it is queued, running or succeeded (an idempotent retry); a
    failed job does not count, so a corrected study can take the file again."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="import_jobs")
    file_name = models.CharField(max_length=200, blank=True)
    #: The stored upload, relative to QOELAB_DATA_DIR; removed (blank) once the job is done.
    stored_path = models.CharField(max_length=300, blank=True)
    file_sha256 = models.CharField(max_length=64)
    file_bytes = models.PositiveBigIntegerField()
    #: Data rows (records after the header), counted when the file was accepted.
    rows_total = models.PositiveIntegerField()
    rows_done = models.PositiveIntegerField(default=0)
    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.QUEUED)
    progress = models.FloatField(default=0.0)
    stage = models.CharField(max_length=80, blank=True)
    sessions = models.PositiveIntegerField(null=True, blank=True)
    ratings = models.PositiveIntegerField(null=True, blank=True)
    participants_created = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    #: Where a refused file is wrong: the CSV line (the header is line 1) and the column.
    error_line = models.PositiveIntegerField(null=True, blank=True)
    error_column = models.CharField(max_length=100, blank=True)
    task_id = models.CharField(max_length=80, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "file_sha256"],
                condition=~models.Q(state="failed"),
                name="one_live_import_per_file",
            ),
        ]
