"""What the background jobs (analysis, CSV import) share: their run state and its claim.

A job is run by a Celery task that acknowledges its message late, so the same job can be
started more than once (a worker lost in the middle, a message delivered again). Each run
claims the job by raising ``attempts`` while the job is still queued or running, and
writes only while its attempt is the latest (:mod:`qoelab.analysis_jobs.run_job`,
docs/deploy.md "Worker crash safety").

Every job is bounded (issue 34, docs/deploy.md "Queues and time limits"): in time, by its
task's soft and hard limits (:class:`TimeLimit`; either one ends in a failed job whose error
names the limit, :class:`JobTask`), and in deliveries, by ``MAX_ATTEMPTS``: a job delivered
again after that many starts is failed without starting its work, so a message that kills
its worker every time leaves the queue after ``MAX_ATTEMPTS`` deliveries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from celery import Task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings
from django.db import connection, models
from django.db.models import QuerySet
from django.utils import timezone

#: What a run returns when a newer attempt has claimed its job.
SUPERSEDED = "superseded"
#: The worker name recorded when tasks run eagerly (no broker configured).
IN_PROCESS = "in-process"
#: A job whose worker was lost this many times is failed instead of being retried.
MAX_ATTEMPTS = 3
#: What a researcher can do about a job stopped by its time limit.
RAISE_THE_LIMIT = "ask the lab's administrator to raise the limit"


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


def lost_too_often(job: BackgroundJob, what: str) -> str | None:
    """Why ``job`` (an ``what``: "import", "analysis") is failed instead of run again: it was
    started :data:`MAX_ATTEMPTS` times and its worker was lost each time (a poison job must
    not block the queue for ever); None while it may still run."""
    if job.attempts < MAX_ATTEMPTS:
        return None
    return (
        f"the {what} was started {job.attempts} times and its worker was lost each time "
        "(killed, or out of memory?); it is not retried again"
    )


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


@dataclass(frozen=True)
class TimeLimit:
    """The time limits of a task (settings: ``variable`` and ``QOELAB_TASK_KILL_GRACE_S``).

    At ``soft_s`` the worker raises SoftTimeLimitExceeded in the task, which then fails its
    job itself; at ``hard_s`` the worker kills the task's process and fails the job from
    the worker's main process (:meth:`JobTask.on_failure`)."""

    job: str  # "the import"
    variable: str  # "QOELAB_IMPORT_TIME_LIMIT_S"
    soft_s: float
    hard_s: float
    advice: str

    def task_options(self) -> dict[str, float]:
        """The limits as Celery task options."""
        return {"soft_time_limit": self.soft_s, "time_limit": self.hard_s}

    def reason(self, *, killed: bool = False) -> str:
        """The failed job's error, for the researcher: which limit stopped it, and what to do."""
        if killed:
            return (
                f"stopped after {self.hard_s:g} s: {self.job}'s time limit ({self.variable} "
                "plus QOELAB_TASK_KILL_GRACE_S); its worker process was killed and nothing "
                f"was stored; {self.advice}"
            )
        return (
            f"stopped after {self.soft_s:g} s: {self.job}'s time limit ({self.variable}); "
            f"nothing was stored; {self.advice}"
        )


def time_limit(job: str, variable: str, advice: str = RAISE_THE_LIMIT) -> TimeLimit:
    """The limits of a task whose soft limit is the setting ``variable``."""
    soft = float(getattr(settings, variable))
    return TimeLimit(job, variable, soft, soft + float(settings.QOELAB_TASK_KILL_GRACE_S), advice)


def upkeep_time_limit() -> dict[str, float]:
    """The task options of the short tasks (heartbeat, session expiry, worker ping)."""
    return time_limit("the task", "QOELAB_UPKEEP_TIME_LIMIT_S").task_options()


def fresh_connection() -> None:
    """Drop the database connection before writing a job's failure after a time limit.

    The limit is an exception raised wherever the task was, possibly in the middle of a
    query, which can leave the connection unusable; the next query opens a new one. Inside
    a transaction (a test's) the connection is kept: closing it would end the transaction.
    """
    if not connection.in_atomic_block:
        connection.close()


def begin_run(
    job: Job, what: str, stage: str, *, worker: str, fail: Callable[[str], None], **extra: Any
) -> QuerySet[Job] | str:
    """The start of every run of a job (an ``what``: "import", "analysis"): the job's state
    when it has finished (its message was delivered again); ``failed`` after ``fail(reason)``
    when its worker was lost too often (:func:`lost_too_often`); :data:`SUPERSEDED` when
    another delivery claimed it first; else the queryset this run writes through
    (:func:`claim`)."""
    if job.state in {JobState.SUCCEEDED, JobState.FAILED}:
        return str(job.state)
    lost = lost_too_often(job, what)
    if lost:
        fail(lost)
        return str(JobState.FAILED)
    mine = claim(job, stage, worker=worker, **extra)
    return SUPERSEDED if mine is None else mine


class JobTask(Task):  # type: ignore[misc]  # celery is untyped
    """A task that runs one job, its id the first argument: acknowledged when it has run
    (a lost worker hands the message back) and failed at either time limit.

    A soft limit is handled by the job's run (it catches SoftTimeLimitExceeded); this class
    handles the hard limit, which the worker's main process reports here after killing the
    task's process, and a soft limit that escaped the run. The message is then acknowledged
    (``acks_on_timeout``), never delivered again."""

    acks_late = True
    reject_on_worker_lost = True
    acks_on_timeout = True
    acks_on_failure = True

    def limit(self) -> TimeLimit:
        """The task's limits (read from the settings when a failure is recorded)."""
        raise NotImplementedError

    def fail_job(self, job_id: int, reason: str) -> None:
        """Mark the job failed with ``reason`` if it has not finished."""
        raise NotImplementedError

    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        if not args or not isinstance(exc, (SoftTimeLimitExceeded, TimeLimitExceeded)):
            return  # the run has recorded any other failure on its job
        fresh_connection()
        self.fail_job(int(args[0]), self.limit().reason(killed=isinstance(exc, TimeLimitExceeded)))
