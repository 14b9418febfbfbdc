"""What the analysis of a study imported from a dataset adds: how the data was read.

Every analysis document of such a study carries the loader's summary in ``meta.dataset``
and its warnings (``undeclared_columns``, ``missing_values``, ``derived_sessions``,
``generated_scenarios``, ``assumed_pace``) first in ``warnings``, as the CLI's analysis of
the same dataset does: :func:`qoe_analysis.report.analyze` takes them as ``dataset``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qoelab.datasets.models import StudyDataset


@dataclass(frozen=True)
class StoredDataset:
    """The summary and warnings stored with the study (``analyze(..., dataset=...)``)."""

    summary: dict[str, Any]
    warnings: list[dict[str, Any]]


def stored_dataset(study_id: int) -> StoredDataset | None:
    """The study's dataset facts; None for a study that was not imported from a dataset."""
    row = StudyDataset.objects.filter(study_id=study_id).values_list("summary", "warnings").first()
    return None if row is None else StoredDataset(summary=row[0], warnings=list(row[1]))
