"""Import jobs: a ratings CSV imported in the background (:mod:`qoelab.exports.tasks`)."""

from __future__ import annotations

from django.db import models

from qoelab.core.background_jobs import BackgroundJob
from qoelab.studies.models import Study


class ImportJob(BackgroundJob):
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
    sessions = models.PositiveIntegerField(null=True, blank=True)
    ratings = models.PositiveIntegerField(null=True, blank=True)
    participants_created = models.PositiveIntegerField(null=True, blank=True)
    #: Where a refused file is wrong: the CSV line (the header is line 1) and the column.
    error_line = models.PositiveIntegerField(null=True, blank=True)
    error_column = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "file_sha256"],
                condition=~models.Q(state="failed"),
                name="one_live_import_per_file",
            ),
        ]
