"""Starting analysis jobs, cached per study version and data version.

A results request looks up the job for the study's current ``version`` (its design) and
data version (counters bumped with every change of the analysed data: the study's and its
sessions', :mod:`qoelab.studies.data_version`) and the options, without reading a single
rating: that lookup is the whole cost of a cached visit. Only when no live job exists is
one created and queued (after the transaction commits), and its run
(:mod:`qoelab.analysis_jobs.run_job`) builds the tidy CSV, hashes it and analyses it — or
reuses the result of a finished job with the same input hash (e.g. after a rating of a
session that is not yet completed, which bumps a counter but does not change the analysed
table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce

from qoelab.analysis_jobs.job_input import NO_RATINGS, input_digest
from qoelab.analysis_jobs.job_response import with_result_text
from qoelab.analysis_jobs.models import (
    DEFAULT_MIN_RELIABLE_RATERS,
    DEFAULT_MIN_RELIABLE_SHARE,
    AnalysisJob,
    JobState,
)
from qoelab.analysis_jobs.tasks import run_analysis
from qoelab.core.errors import BadRequest
from qoelab.participants.withdrawal import taking_part
from qoelab.ratings.models import Rating
from qoelab.runs.models import Session
from qoelab.runs.state_machine import State
from qoelab.studies.models import Study


class NothingToAnalyse(BadRequest):
    """The study has no ratings the analysis could use (400, ``code`` "no_ratings").

    The code lets the results explorer tell "nothing to analyse yet" (a new study) from a
    bad request, and show each figure's reason instead of an error.
    """

    def body(self) -> dict[str, Any]:
        return {**super().body(), "code": "no_ratings"}


__all__ = [
    "NO_RATINGS",
    "AnalysisOptions",
    "JobRequest",
    "NothingToAnalyse",
    "cache_key",
    "data_version_of",
    "input_digest",
    "live_job",
    "request_analysis",
]


@dataclass(frozen=True)
class AnalysisOptions:
    """The options of ``qoe_analysis.analyze`` a results request may set.

    ``min_reliable_raters`` / ``min_reliable_share`` act only with ``reliable_only`` (the
    analysis refuses with fewer reliable raters, warns below the share); without it they
    are stored as the defaults, so that they do not split the cache of one analysis.
    """

    reliable_only: bool = False
    min_reliable_raters: int = DEFAULT_MIN_RELIABLE_RATERS
    min_reliable_share: float = DEFAULT_MIN_RELIABLE_SHARE

    def key(self) -> dict[str, Any]:
        """The job fields of these options (see the class docstring for the defaults)."""
        acting = self if self.reliable_only else AnalysisOptions()
        return {
            "reliable_only": self.reliable_only,
            "min_reliable_raters": int(acting.min_reliable_raters),
            "min_reliable_share": float(acting.min_reliable_share),
        }


@dataclass(frozen=True)
class JobRequest:
    job: AnalysisJob
    cached: bool


def data_version_of(study_id: int) -> tuple[int, int]:
    """The study's design version and its data version as stored now, in one query.

    The data version is the study's own counter plus the sum of its sessions' counters
    (:mod:`qoelab.studies.data_version`): every counter only grows and each write of the
    analysed data adds 1 to one of them, so the sum grows with every such write and never
    returns to an earlier value. One statement reads all of them from one snapshot.
    """
    sessions = (
        Session.objects.filter(study_id=OuterRef("pk"))
        .order_by()
        .values("study_id")
        .annotate(total=Sum("data_version"))
        .values("total")
    )
    version, own, of_sessions = (
        Study.objects.filter(pk=study_id)
        .annotate(sessions_data_version=Coalesce(Subquery(sessions), 0))
        .values_list("version", "data_version", "sessions_data_version")
        .get()
    )
    return version, own + of_sessions


def cache_key(study: Study, options: AnalysisOptions) -> dict[str, Any]:
    """The job's key: the study, both versions as stored now, and the options.

    The counters are read from the database, not from ``study``, which may have been
    loaded before a bump.
    """
    version, data_version = data_version_of(study.pk)
    return {
        "study_id": study.pk,
        "study_version": version,
        "data_version": data_version,
        **options.key(),
    }


def live_job(key: dict[str, Any]) -> AnalysisJob | None:
    """The queued, running or succeeded job for ``key`` (a failed one is asked again),
    its result as the stored JSON text (``job_response``: not decoded and encoded again)."""
    jobs = AnalysisJob.objects.filter(**key).exclude(state=JobState.FAILED)
    return with_result_text(jobs).first()


def has_ratings_to_analyse(study: Study) -> bool:
    """Does the study have a rating of a completed session (the rows of the tidy CSV)?"""
    return bool(
        Rating.objects.filter(
            session__study_id=study.pk,
            session__state=State.COMPLETED,
            **taking_part("session__participant__"),
        ).exists()
    )


def request_analysis(
    study: Study,
    *,
    reliable_only: bool,
    min_reliable_raters: int = DEFAULT_MIN_RELIABLE_RATERS,
    min_reliable_share: float = DEFAULT_MIN_RELIABLE_SHARE,
    user: Any = None,
) -> JobRequest:
    """The job for the study's current data: an existing one (cached) or a new, queued one.

    The options are :class:`AnalysisOptions`'. Raises :class:`NothingToAnalyse` when there
    is no rating of a completed session. Two requests at once create one job (the unique
    constraint on the key; the loser answers with the winner's job).
    """
    options = AnalysisOptions(reliable_only, min_reliable_raters, min_reliable_share)
    key = cache_key(study, options)
    existing = live_job(key)
    if existing is not None:
        return JobRequest(existing, cached=True)
    if not has_ratings_to_analyse(study):
        raise NothingToAnalyse(NO_RATINGS)
    try:
        with transaction.atomic():
            job = AnalysisJob.objects.create(
                **key,
                created_by=user if getattr(user, "is_authenticated", False) else None,
            )
    except IntegrityError:
        winner = live_job(key)
        if winner is None:  # the other request's job failed at once; ours is not there
            raise
        return JobRequest(winner, cached=True)
    job_id = job.pk
    transaction.on_commit(lambda: _enqueue(job_id))
    return JobRequest(job, cached=False)


def _enqueue(job_id: int) -> None:
    """Queue the job's task (run in-process at once when no broker is configured)."""
    try:
        result = run_analysis.delay(job_id)
    except Exception as exc:  # broker down: the job must not stay "queued" forever
        AnalysisJob.objects.filter(pk=job_id, state=JobState.QUEUED).update(
            state=JobState.FAILED, error=f"could not queue the analysis: {exc}"
        )
        return
    AnalysisJob.objects.filter(pk=job_id).update(task_id=str(result.id or ""))
