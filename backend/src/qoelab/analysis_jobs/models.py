"""Analysis jobs: ``qoe_analysis.analyze`` run by Celery on a study's tidy ratings."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from qoelab.studies.models import Study


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class AnalysisJob(models.Model):
    """One analysis of one input. The cache key is (study, study version, reliable_only,
    SHA-256 of the exact CSV analysed and its sidecar): asking again for the same key
    returns this job."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="analysis_jobs")
    study_version = models.PositiveIntegerField()
    reliable_only = models.BooleanField(default=False)
    input_sha256 = models.CharField(max_length=64)
    input_csv = models.TextField()
    input_rows = models.PositiveIntegerField()
    #: The CSV's sidecar: {"items", "acceptance", "min_response_ms"} (its item column's
    #: scales, the acceptance rule, the fast-rating floor); part of the cache key's hash.
    input_items = models.JSONField(null=True, blank=True)
    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.QUEUED)
    progress = models.FloatField(default=0.0)
    stage = models.CharField(max_length=80, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    #: Warnings raised by the analysis (e.g. an ill-conditioned model fit on little data).
    warnings = models.JSONField(default=list, blank=True)
    task_id = models.CharField(max_length=80, blank=True)
    #: How many times a worker has started the job: more than 1 after a worker died in the
    #: middle of it and the task's message was delivered again (``tasks.run_analysis``).
    attempts = models.PositiveSmallIntegerField(default=0)
    #: The Celery worker (node name, e.g. ``worker-1@host``) running or having run the latest
    #: attempt; ``in-process`` when tasks run eagerly (no broker configured).
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
                fields=["study", "study_version", "reliable_only", "input_sha256"],
                condition=~models.Q(state="failed"),
                name="one_live_analysis_per_input",
            ),
        ]
