"""The tidy table's quality-control rows (ITU-T P.808 traps and hidden references) split
from the ratings that are analysed, and judged by :mod:`qoe_analysis.evidence.quality_control`.

A table with a ``kind`` column (:data:`~qoe_analysis.tidy.columns.KIND`) holds, besides the
scenario ratings (``kind`` "scenario" or empty), ``trap`` rows (``qc_expected`` = the
instructed value) and ``hidden_reference`` rows (a scenario's unannounced repeat). Those
rows never enter any MOS or screening statistic: they are split off before validation, and
the QC columns (``kind``, ``qc_expected``, ``qc_failed``, ``qc_reasons`` — the last two are
the export's verdict, recomputed here) are never factors.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.evidence.quality_control import (
    KINDS,
    QC_KINDS,
    QC_RULE,
    QC_SOURCE,
    TRAP,
    QcRow,
    RaterQc,
    judge,
)
from qoe_analysis.scales import OVERALL, Sidecar
from qoe_analysis.tidy.columns import (
    ITEM,
    KIND,
    QC_COLUMNS,
    QC_EXPECTED,
    RATER,
    RATING,
    SCENARIO,
    SESSION,
    TRAINING,
)
from qoe_analysis.tidy.errors import RatingsValidationError

__all__ = [
    "QC_ATTR",
    "QualityControl",
    "apply_quality_control",
    "judge_table",
    "split_quality_control",
]

#: Where :func:`qoe_analysis.io.ratings_csv.load_ratings` keeps the verdicts on the table.
QC_ATTR = "qoe_analysis.quality_control"


@dataclass(frozen=True)
class QualityControl:
    """The QC rows of a table and, once judged, every rater's verdict."""

    rows: tuple[QcRow, ...]
    #: (rater, session, scenario, item) → the first showing's rating, for the repeats.
    first_showings: dict[tuple[str, str, str, str], float]
    raters: tuple[str, ...]

    def __deepcopy__(self, memo: dict[int, Any]) -> QualityControl:
        """Itself: never changed once built (pandas deep-copies ``attrs`` per derived frame)."""
        return self

    def verdicts(self, sidecar: Sidecar) -> list[RaterQc]:
        scales = {item["key"]: item["scale"] for item in sidecar.items}
        return judge(self.rows, self.first_showings, scales, self.raters)

    def section(self, sidecar: Sidecar, *, excluded: bool) -> dict[str, Any]:
        """The document's ``reliability.screening.quality_control``."""
        verdicts = self.verdicts(sidecar)
        return {
            "rule": QC_RULE,
            "source": QC_SOURCE,
            "applied": bool(self.rows),
            "excluded": excluded,
            "n_traps": sum(1 for row in self.rows if row.kind == TRAP),
            "n_hidden_references": sum(1 for row in self.rows if row.kind != TRAP),
            "per_rater": [copy.copy(v.to_dict()) for v in verdicts],
            "failed": [v.rater_id for v in verdicts if v.failed],
        }


def _texts(series: pd.Series) -> np.ndarray[Any, Any]:
    return series.astype(object).where(series.notna(), "").map(lambda v: str(v).strip()).to_numpy()


def _number(value: Any, column: str, line: int | None) -> float:
    number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
    if pd.isna(number) or not np.isfinite(number):
        raise RatingsValidationError(
            f"a quality-control row needs a number, got {value!r}", column=column, line=line
        )
    return float(number)


def split_quality_control(
    raw: pd.DataFrame, first_line: int | None = None
) -> tuple[pd.DataFrame, QualityControl | None, int | None]:
    """(the scenario rows without QC columns, the QC rows or None without a ``kind``
    column, the first line to validate the scenario rows with).

    The scenario rows keep their file lines when the QC rows all come after them (as the
    export writes them); otherwise the lines are unknown (None) rather than wrong.
    """
    present = [c for c in QC_COLUMNS if c in raw.columns]
    if KIND not in raw.columns:
        return (raw.drop(columns=present) if present else raw), None, first_line
    kinds = _texts(raw[KIND])
    unknown = sorted({k for k in kinds if k and k not in KINDS})
    if unknown:
        position = int(np.flatnonzero(kinds == unknown[0])[0])
        raise RatingsValidationError(
            f"{unknown[0]!r} is not a kind (one of {', '.join(KINDS)}; empty = scenario)",
            column=KIND,
            line=None if first_line is None else first_line + position,
        )
    is_qc = np.isin(kinds, QC_KINDS)
    positions = np.flatnonzero(is_qc)
    trailing = len(positions) == 0 or positions[0] == len(raw) - len(positions)
    scenario = raw.loc[~is_qc].drop(columns=present).reset_index(drop=True)
    items = _texts(raw[ITEM]) if ITEM in raw.columns else np.full(len(raw), OVERALL, object)
    raters, sessions, scenarios = (_texts(raw[c]) for c in (RATER, SESSION, SCENARIO))
    expected = raw[QC_EXPECTED].to_numpy(dtype=object) if QC_EXPECTED in raw else None
    rows = []
    for p in positions:
        line = None if first_line is None else first_line + int(p)
        want = expected[p] if expected is not None and kinds[p] == TRAP else None
        rows.append(
            QcRow(
                rater=str(raters[p]),
                session=str(sessions[p]),
                scenario=str(scenarios[p]),
                item=str(items[p]),
                kind=str(kinds[p]),
                rating=_number(raw[RATING].iloc[p], RATING, line),
                expected=None
                if want is None or pd.isna(want)
                else _number(want, QC_EXPECTED, line),
            )
        )
    wanted = {(r.rater, r.session, r.scenario, r.item) for r in rows if r.kind != TRAP}
    training = (
        pd.to_numeric(raw[TRAINING], errors="coerce").to_numpy() == 1
        if TRAINING in raw.columns
        else np.zeros(len(raw), dtype=bool)
    )
    first: dict[tuple[str, str, str, str], float] = {}
    for p in np.flatnonzero(~is_qc & ~training):
        slot = (str(raters[p]), str(sessions[p]), str(scenarios[p]), str(items[p]))
        if slot in wanted and slot not in first:
            value = pd.to_numeric(pd.Series([raw[RATING].iloc[p]]), errors="coerce").iloc[0]
            if pd.notna(value):
                first[slot] = float(value)
    all_raters = tuple(sorted({str(r) for r in raters}))
    qc = QualityControl(tuple(rows), first, all_raters)
    return scenario, qc, first_line if trailing else None


def judge_table(table: pd.DataFrame) -> QualityControl | None:
    """The QC rows a loaded table carries (:data:`QC_ATTR`), None when it has none."""
    qc = table.attrs.get(QC_ATTR)
    return qc if isinstance(qc, QualityControl) else None


def apply_quality_control(
    table: pd.DataFrame, qc: QualityControl | None, sidecar: Sidecar, *, exclude: bool
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(the validated ``table``, without the failed raters' rows when ``exclude``; the
    ``quality_control`` section). Default: failed raters are flagged, not excluded."""
    if qc is None:
        qc = QualityControl((), {}, tuple(sorted(_texts(table[RATER]).tolist())))
    section = qc.section(sidecar, excluded=exclude and bool(qc.rows))
    if exclude and section["failed"]:
        kept = ~np.isin(_texts(table[RATER]), section["failed"])
        table = table.loc[kept].reset_index(drop=True)
    return table, section
