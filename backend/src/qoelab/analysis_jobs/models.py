"""Analysis jobs: ``qoe_analysis.analyze`` run by Celery on a study's tidy ratings."""

from __future__ import annotations

from django.db import models

from qoelab.core.background_jobs import BackgroundJob, JobState
from qoelab.studies.models import Study

__all__ = [
    "DEFAULT_MIN_RELIABLE_RATERS",
    "DEFAULT_MIN_RELIABLE_SHARE",
    "OPTION_FIELDS",
    "AnalysisJob",
    "JobState",
]

#: ``qoe_analysis.analyze``'s defaults, repeated so that loading the models does not import
#: the analysis package (pandas); a test keeps them in step.
DEFAULT_MIN_RELIABLE_RATERS = 3
DEFAULT_MIN_RELIABLE_SHARE = 0.5
#: The analysis options: part of the cache key and of a reused result's match.
OPTION_FIELDS = ("reliable_only", "min_reliable_raters", "min_reliable_share")


class AnalysisJob(BackgroundJob):
    """One analysis of one state of a study's data.

    The cache key is (study, ``Study.version``, data version, the options), the data
    version being ``Study.data_version`` plus its sessions' ``Session.data_version``
    (:mod:`qoelab.studies.data_version`): asking again while no counter has moved returns
    this job without reading the ratings (:mod:`qoelab.analysis_jobs.services`). The task
    builds the input (the tidy CSV and its sidecar) when it starts and stores it with its
    SHA-256, so the exact table analysed stays on record.
    """

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="analysis_jobs")
    study_version = models.PositiveIntegerField()
    #: The study's data version the job was requested for (the study's counter plus its
    #: sessions'); null for jobs of before the counter existed (never matched again).
    data_version = models.PositiveIntegerField(null=True, blank=True)
    reliable_only = models.BooleanField(default=False)
    #: With ``reliable_only``: fewer reliable raters than this refuses the analysis (the job
    #: fails with the analysis' message), a smaller reliable share than
    #: ``min_reliable_share`` adds the warning ``few_reliable_raters`` (``qoe_analysis.analyze``).
    #: Without ``reliable_only`` they are the defaults (they change nothing then).
    min_reliable_raters = models.PositiveSmallIntegerField(default=DEFAULT_MIN_RELIABLE_RATERS)
    min_reliable_share = models.FloatField(default=DEFAULT_MIN_RELIABLE_SHARE)
    #: Empty until the task has built the input.
    input_sha256 = models.CharField(max_length=64, blank=True)
    input_csv = models.TextField(blank=True)
    input_rows = models.PositiveIntegerField(default=0)
    #: The CSV's sidecar: {"items", "acceptance", "min_response_ms"} (its item column's
    #: scales, the acceptance rule, the fast-rating floor); part of the cache key's hash.
    input_items = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    #: Warnings raised by the analysis (e.g. an ill-conditioned model fit on little data).
    warnings = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            # Two first requests at once create one job: the second one's insert fails and
            # it answers with the first one's job.
            models.UniqueConstraint(
                fields=["study", "study_version", "data_version", *OPTION_FIELDS],
                condition=~models.Q(state="failed"),
                name="one_live_analysis_per_options",
            ),
        ]
        indexes = [
            # Finding a finished job of identical input (its result is reused).
            models.Index(
                fields=["study", "study_version", *OPTION_FIELDS, "input_sha256"],
                name="analysis_job_options_input",
            ),
        ]
