"""What the background jobs (analysis, CSV import) share: their run state and its claim.

A job is run by a Celery task that acknowledges its message late, so the same job can be
started more than once (a worker lost in the middle, a message delivered again). Each run
claims the job by raising ``attempts`` while the job is still queued or running, and
writes only while its attempt is the latest (:mod:`qoelab.analysis_jobs.run_job`,
docs/deploy.md "Worker crash safety").
"""

from __future__ import annotations

from typing import Any, TypeVar

from celery import Task
from django.conf import settings
from django.db import models
from django.db.models import QuerySet
from django.utils import timezone

#: What a run returns when a newer attempt has claimed its job.
SUPERSEDED = "superseded"
#: The worker name recorded when tasks run eagerly (no broker configured).
IN_PROCESS = "in-process"
#: A job whose worker was lost this many times is failed instead of being retried.
MAX_ATTEMPTS = 3


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class JobSuperseded(Exception):
    """A newer attempt has claimed the job; this run must stop without writing."""


class BackgroundJob(models.Model):
    """The run state of a job run by a Celery task (abstract: no table of its own)."""

    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.QUEUED)
    progress = models.FloatField(default=0.0)
    stage = models.CharField(max_length=80, blank=True)
    error = models.TextField(blank=True)
    task_id = models.CharField(max_length=80, blank=True)
    #: How many times a worker has started the job: more than 1 after a worker died in the
    #: middle of it and the task's message was delivered again.
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
        abstract = True


#: The run-state fields an API shows, in the order the job serializers list them last.
RUN_STATE_FIELDS = ["attempts", "worker", "created_at", "started_at", "finished_at"]

Job = TypeVar("Job", bound=BackgroundJob)


def worker_name(task: Task) -> str:
    """The name recorded in ``worker``: the Celery node, or ``in-process`` when eager."""
    name = IN_PROCESS if task.request.is_eager else str(task.request.hostname or "")
    return name[:200]


def claim(job: Job, stage: str, *, worker: str, **extra: Any) -> QuerySet[Job] | None:
    """Claim ``job`` for a new attempt run by ``worker`` (:func:`worker_name`): mark it
    running at ``stage`` (plus the ``extra`` field values) if no other run has claimed it
    since it was read.

    Returns the queryset this run writes through (it matches only while its attempt is the
    latest), or None when another delivery of the message claimed the job first.
    """
    model = type(job)
    attempt = job.attempts + 1
    claimed = model._default_manager.filter(
        pk=job.pk, attempts=job.attempts, state__in=[JobState.QUEUED, JobState.RUNNING]
    ).update(
        state=JobState.RUNNING,
        attempts=attempt,
        worker=worker,
        started_at=timezone.now(),
        stage=stage,
        progress=0.0,
        **extra,
    )
    if not claimed:
        return None
    return model._default_manager.filter(pk=job.pk, attempts=attempt)
