"""The study's data version: a counter of changes to what its analysis reads.

The analysis document is cached per (study, ``Study.version``, ``Study.data_version``,
options) (:mod:`qoelab.analysis_jobs.services`), so every write that changes the analysis'
input must bump the counter in its own transaction — then a reader either sees the new data
and the new counter, or neither. The write paths that call :func:`bump_data_version`:

* a rating recorded (``runs.services.rating``) and a session completed
  (``runs.services.transitions``: only completed sessions are analysed);
* a finished ratings import (``exports.importer``);
* a change of an analysis setting of the study (:data:`ANALYSIS_SETTINGS`, through the API
  or a study document) and of a participant's code, age or skill (CSV factor columns).

Scenario changes of a study with sessions bump ``Study.version`` instead (the design's
version, also part of the cache key); a study without sessions has no ratings to analyse.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F

from qoelab.studies.models import Study

#: Study fields the tidy CSV or its sidecar (and so the analysis) depend on: the items and
#: their scales, the acceptance rule, the fast-rating floor, the questionnaire's factor
#: columns, and the legacy scale labels (which define the overall item's scale).
ANALYSIS_SETTINGS = (
    "rating_items",
    "acceptance",
    "min_response_ms",
    "questionnaire",
    "scale_labels",
)


def bump_data_version(study: Study | int) -> None:
    """Add 1 to the study's data version atomically (``F() + 1``: no lost update).

    Call it inside the transaction that writes the data, so the change and the new counter
    commit together. ``study`` is a study or its primary key; an in-memory study's field is
    not refreshed (read it from the database when you need the new value).
    """
    pk = study.pk if isinstance(study, Study) else study
    Study.objects.filter(pk=pk).update(data_version=F("data_version") + 1)


def analysis_settings(study: Study) -> tuple[Any, ...]:
    """The values of :data:`ANALYSIS_SETTINGS` (compare before and after a change)."""
    return tuple(getattr(study, name) for name in ANALYSIS_SETTINGS)
