"""The study's data version: counters of changes to what its analysis reads.

The analysis document is cached per (study, ``Study.version``, data version, options)
(:mod:`qoelab.analysis_jobs.services`). The data version is ``Study.data_version`` plus the
sum of the study's ``Session.data_version``: every write that changes the analysis' input
bumps one of them, in its own transaction — then a reader either sees the new data and the
new counter, or neither. The write paths:

* a rating recorded and a session completed bump the *session's* counter, under the session
  row lock the step holds anyway (``runs.services.transitions.bump_session_data_version``).
  Bumping the study row instead made the ratings of all the study's live sessions queue
  for that one row lock until each rating's commit (issue 16, live lab);
* a finished ratings import (``exports.importer``), a change of an analysis setting of the
  study (:data:`~qoelab.studies.models.ANALYSIS_SETTINGS`, through the API or a study
  document) and of a participant's code, age or skill (CSV factor columns) call
  :func:`bump_data_version`.

Every counter only grows (a session can be deleted only before it starts, with its counter
still 0), so the sum never returns to an earlier value. Scenario changes of a study with
sessions bump ``Study.version`` instead (the design's version, also part of the cache key);
a study without sessions has no ratings to analyse.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F

from qoelab.studies.models import ANALYSIS_SETTINGS, Study

__all__ = ["ANALYSIS_SETTINGS", "analysis_settings", "bump_data_version"]


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
