"""Dataset imports (issue 32): a QoE dataset collected elsewhere, with its dataset descriptor
(docs/importing-data.md), into a new analysis-only study.

:class:`DatasetJob` is one submitted import, run in the background
(:mod:`qoelab.datasets.run`); :class:`StudyDataset` is what the import leaves with its study
for the analysis: how the data was read (the loader's summary and warnings, which every
analysis document of the study carries in ``meta.dataset`` and ``warnings``).
"""

from __future__ import annotations

from typing import Any

from django.db import models

from qoelab.core.background_jobs import BackgroundJob
from qoelab.studies.models import Study


def _empty_list() -> list[Any]:
    return []


class DatasetJob(BackgroundJob):
    """One submitted dataset: its descriptor and files (stored under
    ``QOELAB_DATA_DIR/imports/`` until the job is done), then either the new study with the
    counts and how the data was read, or every problem found."""

    #: The new study once the job has succeeded (kept null if the study is deleted).
    study = models.ForeignKey(
        Study, null=True, blank=True, on_delete=models.SET_NULL, related_name="dataset_jobs"
    )
    title = models.CharField(max_length=200, blank=True)
    #: The parsed descriptor as submitted, and the name it came under (a file's, or
    #: "descriptor" for the form's text).
    descriptor = models.JSONField()
    descriptor_name = models.CharField(max_length=200, default="descriptor")
    #: Per data file: {"path": resource path, "name": upload name, "stored": path relative
    #: to QOELAB_DATA_DIR (blank once done), "bytes", "rows", "sha256"}.
    files = models.JSONField(default=_empty_list)
    #: SHA-256 of the descriptor and the files together: the same submission again while
    #: its job is live (or its study exists) returns that job.
    digest = models.CharField(max_length=64)
    file_bytes = models.PositiveBigIntegerField(default=0)
    rows_total = models.PositiveIntegerField(default=0)
    rows_done = models.PositiveIntegerField(default=0)
    sessions = models.PositiveIntegerField(null=True, blank=True)
    ratings = models.PositiveIntegerField(null=True, blank=True)
    participants_created = models.PositiveIntegerField(null=True, blank=True)
    scenarios = models.PositiveIntegerField(null=True, blank=True)
    #: The problems of a failed job ({file, line, column, value, rule}, capped) and how
    #: many more there are.
    problems = models.JSONField(default=_empty_list)
    more = models.PositiveIntegerField(default=0)
    #: How the data was read (qoe_analysis.dataset: ``meta.dataset`` and its warnings).
    summary = models.JSONField(null=True, blank=True)
    dataset_warnings = models.JSONField(default=_empty_list)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["created_by", "digest"], name="dataset_job_submission")]


class StudyDataset(models.Model):
    """How a study imported from a dataset was read: passed to every analysis of it."""

    study = models.OneToOneField(
        Study, on_delete=models.CASCADE, primary_key=True, related_name="dataset"
    )
    descriptor = models.JSONField()
    summary = models.JSONField()
    warnings = models.JSONField(default=_empty_list)
    created_at = models.DateTimeField(auto_now_add=True)
