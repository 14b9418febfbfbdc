"""One data file read by the descriptor: its rows as the loader's wide table.

Per role (docs/importing-data.md, "Missing values"):

* rater, game, session, pace, scenario, training, factor: a missing or unreadable cell is a
  problem (file, line, column, value, rule);
* rating: a missing cell drops that rating (counted per column); a value off the field's
  scale is a problem;
* questionnaire, covariate: a missing cell is allowed (counted); an unreadable one is a
  problem;
* ignore: not read.

Rater ids become participant codes, namespaced by the resource (:func:`rater_code`).
Factor values are converted to the registry's unit (:mod:`qoe_analysis.dataset.units`) and
must lie within the registry's limits. A context value is the same on every row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.dataset.cells import Cells, raw_texts, read_cells
from qoe_analysis.dataset.descriptor import Descriptor, ResourceSpec
from qoe_analysis.dataset.fields import IDENTITY_ROLES, FieldSpec
from qoe_analysis.dataset.problems import Problems
from qoe_analysis.scales import is_discrete
from qoe_analysis.tidy.columns import TRAINING
from qoe_analysis.tidy.design import GAME, PACE, PACE_CLASSES, RATER, SCENARIO, SESSION

__all__ = [
    "FILE",
    "LINE",
    "PARTICIPANT_CODE",
    "Part",
    "covariate_column",
    "rater_code",
    "rating_column",
    "read_part",
    "slug",
]

Array = np.ndarray[Any, Any]
FILE = "__file"
LINE = "__line"
#: the web app's participant code (qoelab.participants.models)
PARTICIPANT_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
_NOT_CODE = re.compile(r"[^A-Za-z0-9_.-]+")
#: the header is line 1, the first row line 2
FIRST_LINE = 2
_IDENTITY_COLUMN = {
    "rater": RATER,
    "session": SESSION,
    "game": GAME,
    "pace": PACE,
    "scenario": SCENARIO,
}


def rating_column(item: str) -> str:
    return f"rating:{item}"


def covariate_column(name: str) -> str:
    return f"covariate:{name}"


def slug(text: str) -> str:
    """``text`` as code characters: each run of characters other than letters, digits,
    '_', '.' and '-' becomes one '_', and the ends lose their '_', '.' and '-'
    ("Player 1" → "Player_1")."""
    return _NOT_CODE.sub("_", text).strip("_.-")


def rater_code(raw: str, namespace: str | None) -> str:
    """The participant code of a rater id: ``<namespace>.<slug>`` ("wired-a.Player_1"),
    or the slug alone without a namespace."""
    code = slug(raw)
    return f"{namespace}.{code}" if namespace else code


@dataclass
class Part:
    """A file's rows (wide: one row per file row, a column per rating item) and counts."""

    frame: pd.DataFrame
    rows: int
    blank_rows: int
    undeclared: list[str]
    missing: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)  # rating column → missing cells
    raw_raters: dict[str, str] = field(default_factory=dict)  # code → first raw id


class _PartReader:
    def __init__(
        self,
        table: pd.DataFrame,
        index: int,
        resource: ResourceSpec,
        descriptor: Descriptor,
        problems: Problems,
        namespace: str | None,
    ) -> None:
        self.resource, self.descriptor, self.problems = resource, descriptor, problems
        self.namespace = namespace
        blank = np.ones(len(table), dtype=bool)
        for column in table.columns:  # a blank line inside the file: no cell at all
            blank &= raw_texts(table[column]) == ""
        self.table = table[~blank].reset_index(drop=True)
        self.blank_rows = int(blank.sum())
        self.lines = np.flatnonzero(~blank) + FIRST_LINE
        self.out: dict[str, Any] = {FILE: np.full(len(self.table), index), LINE: self.lines}
        self.part = Part(pd.DataFrame(), len(self.table), self.blank_rows, [])

    def fail_rows(self, mask: Array, spec: FieldSpec, cells: Cells, rule: str) -> None:
        for pos in np.flatnonzero(mask).tolist():
            self.problems.add(
                rule,
                file=self.resource.path,
                line=int(self.lines[pos]),
                column=spec.name,
                value=cells.texts[pos] if cells.texts[pos] != "" else None,
            )

    @staticmethod
    def unrequired(spec: FieldSpec, missing: Array) -> Array:
        """The missing cells a role refuses, not yet reported by ``constraints.required``."""
        return missing if not spec.required else np.zeros(missing.size, dtype=bool)

    def cells(self, spec: FieldSpec) -> Cells | None:
        if spec.name not in self.table.columns:
            if spec.name not in self.resource.missing_fields:
                allowed = spec.role in ("questionnaire", "covariate", "ignore")
                hint = " (list it in the resource's missing_fields)" if allowed else ""
                self.problems.add(
                    f"the descriptor declares this column but the file has none{hint}",
                    file=self.resource.path,
                    line=1,
                    column=spec.name,
                )
            return None
        cells = read_cells(self.table[spec.name], spec, self.descriptor.missing_values)
        self.fail_rows(cells.bad, spec, cells, cells.rule)
        self.part.missing[spec.name] = int(cells.missing.sum())
        if spec.required:
            self.fail_rows(cells.missing, spec, cells, "a value is required (constraints.required)")
        return cells

    def identity(self, spec: FieldSpec) -> None:
        cells = self.cells(spec)
        if cells is None:
            return
        role = spec.role
        self.fail_rows(
            self.unrequired(spec, cells.missing),
            spec,
            cells,
            f"every rating has a {role}: the cell is missing",
        )
        texts = np.where(cells.missing, np.array(None, dtype=object), cells.texts)
        if role == "pace":
            lowered = np.array([t.lower() if t else t for t in texts], dtype=object)
            bad = ~cells.missing & ~np.isin(lowered, PACE_CLASSES)
            self.fail_rows(bad, spec, cells, f"a pace is one of {', '.join(PACE_CLASSES)}")
            texts = lowered
        if role == "rater":
            texts = self.raters(spec, cells, texts)
        self.out[_IDENTITY_COLUMN[role]] = texts

    def raters(self, spec: FieldSpec, cells: Cells, texts: Array) -> Array:
        codes = np.empty(texts.size, dtype=object)
        known: dict[str, str] = {}
        for pos, raw in enumerate(texts.tolist()):
            if raw is None:
                continue
            code = known.get(raw)
            if code is None:
                code = known[raw] = rater_code(raw, self.namespace)
                if not PARTICIPANT_CODE.fullmatch(code):
                    self.problems.add(
                        "a rater id becomes a participant code: 1-40 letters, digits, '_', '.' "
                        f"or '-', with the namespace prefix (here '{code}')",
                        file=self.resource.path,
                        line=int(self.lines[pos]),
                        column=spec.name,
                        value=raw,
                    )
                first = self.part.raw_raters.setdefault(code, raw)
                if first != raw:
                    self.problems.add(
                        f"two rater ids become the participant code '{code}' ('{first}' too): "
                        "rename one",
                        file=self.resource.path,
                        line=int(self.lines[pos]),
                        column=spec.name,
                        value=raw,
                    )
            codes[pos] = code
        return codes

    def factor(self, spec: FieldSpec) -> None:
        cells = self.cells(spec)
        if cells is None or spec.factor is None:
            return
        factor = spec.factor
        self.fail_rows(
            self.unrequired(spec, cells.missing),
            spec,
            cells,
            "every rating has its network condition: the cell is missing",
        )
        if factor.kind == "nominal":
            values = cells.values
            bad = ~cells.missing & ~cells.bad & ~np.isin(cells.texts, factor.choices)
            self.fail_rows(
                bad, spec, cells, f"{factor.label.lower()} is one of {', '.join(factor.choices)}"
            )
        else:
            values = cells.values * spec.multiplier
            if spec.multiplier != 1.0:  # 0.005 × 100 is 0.5000000000000001 in binary
                values = np.round(values, 9)
            lo = -np.inf if factor.minimum is None else factor.minimum
            hi = np.inf if factor.maximum is None else factor.maximum
            with np.errstate(invalid="ignore"):
                bad = ~np.isnan(values) & ((values < lo) | (values > hi))
            unit = f" {factor.unit}" if factor.unit else ""
            self.fail_rows(
                bad,
                spec,
                cells,
                f"{factor.label.lower()} lies in the registry's range {lo:g} to {hi:g}{unit} "
                f"(after conversion from {spec.unit or factor.unit})",
            )
        for column in spec.columns:
            self.out[column] = values

    def rating(self, spec: FieldSpec) -> None:
        cells = self.cells(spec)
        if cells is None or spec.scale is None or spec.item is None:
            return
        scale = spec.scale
        values = cells.values
        with np.errstate(invalid="ignore"):
            off = ~np.isnan(values) & ((values < scale["min"]) | (values > scale["max"]))
            if is_discrete(scale):
                off |= ~np.isnan(values) & (values != np.round(values))
        kind = "an integer" if is_discrete(scale) else "a number"
        self.fail_rows(
            off,
            spec,
            cells,
            f"a rating of item {spec.item} is {kind} from {scale['min']:g} to "
            f"{scale['max']:g} (the field's scale)",
        )
        self.part.dropped[spec.item] = int(cells.missing.sum())
        self.out[rating_column(spec.item)] = np.where(off, np.nan, values)

    def answers(self, spec: FieldSpec) -> None:
        cells = self.cells(spec)
        column = spec.name if spec.role == "questionnaire" else covariate_column(spec.name)
        if cells is None:
            empty = np.full(
                len(self.table),
                np.nan if spec.numeric else None,
                dtype=np.float64 if spec.numeric else object,
            )
            self.out[column] = empty
            return
        self.out[column] = cells.values

    def training(self, spec: FieldSpec) -> None:
        cells = self.cells(spec)
        if cells is None:
            return
        self.fail_rows(
            self.unrequired(spec, cells.missing),
            spec,
            cells,
            "every rating says whether it was training: the cell is missing",
        )
        bad = ~np.isnan(cells.values) & ~np.isin(cells.values, (0.0, 1.0))
        self.fail_rows(bad, spec, cells, "training is 0 or 1")
        self.out[TRAINING] = cells.values

    def read(self) -> Part:
        for spec in self.descriptor.fields:
            if spec.role in IDENTITY_ROLES:
                self.identity(spec)
            elif spec.role == "factor":
                self.factor(spec)
            elif spec.role == "rating":
                self.rating(spec)
            elif spec.role in ("questionnaire", "covariate"):
                self.answers(spec)
            elif spec.role == "training":
                self.training(spec)
            elif spec.name in self.table.columns:
                self.part.missing.pop(spec.name, None)
        for key, value in self.resource.context.items():
            self.out[key] = np.full(
                len(self.table), value, dtype=object if isinstance(value, str) else np.float64
            )
        declared = {f.name for f in self.descriptor.fields}
        self.part.undeclared = [str(c) for c in self.table.columns if str(c) not in declared]
        self.part.frame = pd.DataFrame(self.out)
        return self.part


def read_part(
    table: pd.DataFrame,
    index: int,
    resource: ResourceSpec,
    descriptor: Descriptor,
    problems: Problems,
    namespace: str | None,
) -> Part:
    """The rows of ``table`` (the file of ``resource``, the ``index``-th resource) as the
    loader's wide table; its problems are added to ``problems``."""
    return _PartReader(table, index, resource, descriptor, problems, namespace).read()
