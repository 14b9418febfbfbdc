"""Any QoE dataset in: the descriptor and its data files to the tidy long table the analysis
takes (issue 32; docs/importing-data.md).

:func:`load_dataset` is a pure function of the descriptor (the parsed JSON/YAML) and the
tables (a mapping from each resource's ``path`` to its table of cells, or a reader called
with each resource); :mod:`qoe_analysis.dataset.reading` reads files for the CLI, and the
web import passes the tables it has. Every problem of the descriptor and of the cells is
collected and raised together as one
:class:`~qoe_analysis.dataset.problems.DatasetError`; the design rules (one condition per
scenario, one game per session, one pace per game, one rating per slot) are checked once
the cells read, and their problems are raised together too.

Files merge: their rows are stacked in resource order, each file's rater ids in its own
namespace (``<namespace>.<id>``; a resource without one, among several, takes its file
name's), its context values as per-session factor columns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.dataset import design
from qoe_analysis.dataset.descriptor import (
    NAMESPACE_PATTERN,
    Descriptor,
    ResourceSpec,
    parse_descriptor,
)
from qoe_analysis.dataset.part import (
    FILE,
    LINE,
    Part,
    covariate_column,
    rating_column,
    read_part,
    slug,
)
from qoe_analysis.dataset.problems import DatasetError, Problems
from qoe_analysis.dataset.summary import Facts, dataset_summary, dataset_warnings
from qoe_analysis.scales import parse_sidecar
from qoe_analysis.schema.dataset_types import DatasetSummary
from qoe_analysis.schema.document import DocWarning
from qoe_analysis.tidy.columns import FACTOR_COLUMNS, ITEM, TRAINING
from qoe_analysis.tidy.design import GAME, PACE, RATER, RATING, SCENARIO, SESSION
from qoe_analysis.tidy.errors import RatingsValidationError
from qoe_analysis.tidy.validation import validate_ratings

__all__ = ["LoadedDataset", "Reader", "Tables", "load_dataset", "namespaces"]

Reader = Callable[[ResourceSpec], pd.DataFrame]
Tables = Mapping[str, pd.DataFrame] | Reader


@dataclass(frozen=True)
class LoadedDataset:
    """The dataset as the analysis takes it.

    ``ratings``: the validated tidy long table (:func:`qoe_analysis.report.analyze`);
    ``items``: its items sidecar (JSON form); ``warnings``: how the data was read
    (``{code, message, where}``); ``summary``: files, rows, ratings kept and dropped,
    gaps per column, undeclared columns, namespaces, conditions; ``covariates``: the
    per-rating measurements, row for row with ``ratings`` (never factors); ``origin``: the
    file and line of each row of ``ratings``."""

    ratings: pd.DataFrame
    items: dict[str, Any]
    warnings: list[DocWarning]
    summary: DatasetSummary
    covariates: pd.DataFrame
    origin: pd.DataFrame
    descriptor: Descriptor


def namespaces(descriptor: Descriptor) -> list[str | None]:
    """Each resource's rater namespace: its own, else (among several files) its file
    name's stem as a code ("wired_a.csv" → "wired_a"), else none."""
    out: list[str | None] = []
    several = len(descriptor.resources) > 1
    for i, resource in enumerate(descriptor.resources):
        name = resource.namespace
        if name is None and several:
            stem = slug(PurePosixPath(resource.path).stem).replace(".", "_")[:20]
            name = stem if NAMESPACE_PATTERN.fullmatch(stem) else f"part{i + 1}"
        out.append(name)
    return out


def _table(
    tables: Tables, resource: ResourceSpec, source: str, problems: Problems
) -> pd.DataFrame | None:
    try:
        if isinstance(tables, Mapping):
            if resource.path not in tables:
                problems.add("no table was given for this resource", file=resource.path)
                return None
            return tables[resource.path]
        return tables(resource)
    except (OSError, ValueError) as exc:
        problems.add(f"the file cannot be read: {' '.join(str(exc).split())}", file=resource.path)
        return None


def _parts(descriptor: Descriptor, tables: Tables, problems: Problems, strict: bool) -> list[Part]:
    parts = []
    for i, (resource, namespace) in enumerate(
        zip(descriptor.resources, namespaces(descriptor), strict=True)
    ):
        table = _table(tables, resource, descriptor.source, problems)
        if table is None:
            continue
        part = read_part(table, i, resource, descriptor, problems, namespace)
        if strict:
            for column in part.undeclared:
                problems.add(
                    "the descriptor does not declare this column (--strict): give it a "
                    "role, or the role ignore",
                    file=resource.path,
                    line=1,
                    column=column,
                )
        parts.append(part)
    return parts


def _factor_columns(descriptor: Descriptor) -> list[str]:
    present = {c for f in descriptor.role("factor") for c in f.columns}
    return [c for c in FACTOR_COLUMNS if c in present]


def _names(descriptor: Descriptor) -> dict[str, str]:
    """The field's (the files') name of each tidy column a field became."""
    tidy = {"rater": RATER, "session": SESSION, "game": GAME, "pace": PACE, "scenario": SCENARIO}
    names = {tidy[f.role]: f.name for f in descriptor.fields if f.role in tidy}
    for f in descriptor.role("factor"):
        for column in f.columns:
            names.setdefault(column, f.name)
    return names


def _design(descriptor: Descriptor, wide: pd.DataFrame, problems: Problems) -> Facts:
    """Answers, scenarios, sessions and pace on ``wide`` (in place); the facts they leave."""
    where = design.Where(wide, [r.path for r in descriptor.resources], _names(descriptor))
    facts = Facts()
    factors = _factor_columns(descriptor)
    # a condition counts (and gets a code) when a row of it keeps a rating: the analysis
    # and the web import's scenarios see only those (issue 32)
    rated = ~np.isnan(_rating_values(descriptor, wide)).all(axis=1)
    if SCENARIO in wide.columns:
        # one column per field: a "both" field's two columns hold the same values
        per_field = [f.columns[0] for f in descriptor.role("factor") if f.columns]
        rule = "each scenario has one network condition"
        design.check_one_per(wide, SCENARIO, per_field, rule, where, problems)
        facts.n_conditions = design.rated_conditions(wide, factors, rated)
    else:
        wide[SCENARIO], facts.n_conditions = design.scenario_codes(wide, factors, rated)
        facts.scenarios = "generated"
    if SESSION in wide.columns:
        wide[SESSION] = design.declared_sessions(wide)
        design.check_one_per(
            wide, SESSION, [GAME], "a session is one rater playing one game", where, problems
        )
    else:
        wide[SESSION], facts.repeats = design.derive_sessions(
            wide, design.condition_keys(wide, factors)
        )
        facts.sessions = "derived"
    facts.pace = design.assign_pace(wide, descriptor.game_paces, where, problems)
    for spec in descriptor.role("questionnaire"):  # once the sessions are known
        wide[spec.name], facts.unanswered[spec.name] = design.per_rater_answers(
            wide, spec.name, where, problems
        )
    return facts


def _items(descriptor: Descriptor) -> list[str]:
    return [f.item for f in descriptor.role("rating") if f.item is not None]


def _rating_values(descriptor: Descriptor, wide: pd.DataFrame) -> np.ndarray[Any, Any]:
    """The ratings of each row, one column per item in field order (NaN: missing)."""
    columns = [wide[rating_column(k)].to_numpy(dtype=np.float64) for k in _items(descriptor)]
    return np.stack(columns, axis=1)


def _long(descriptor: Descriptor, wide: pd.DataFrame) -> pd.DataFrame:
    """One row per present rating, row by row of the files, items in field order."""
    items = _items(descriptor)
    values = _rating_values(descriptor, wide)
    rows, which = np.nonzero(~np.isnan(values))
    long = wide.iloc[rows].reset_index(drop=True)
    long[RATING] = values[rows, which]
    long[ITEM] = np.array(items, dtype=object)[which]
    return long


def _tidy(descriptor: Descriptor, long: pd.DataFrame) -> pd.DataFrame:
    """The tidy columns in export order, then the context and questionnaire columns."""
    several = len(descriptor.role("rating")) > 1
    columns = [RATER, SESSION, GAME, PACE, SCENARIO, *_factor_columns(descriptor)]
    columns += [ITEM] if several else []
    columns += [RATING, *([TRAINING] if TRAINING in long.columns else [])]
    columns += descriptor.context_keys + [f.name for f in descriptor.role("questionnaire")]
    tidy = long[columns].copy()
    if TRAINING in tidy.columns:
        tidy[TRAINING] = tidy[TRAINING].to_numpy(dtype=np.int64)
    return tidy


def load_dataset(
    descriptor: Mapping[str, Any],
    tables: Tables,
    *,
    strict: bool = False,
    source: str = "descriptor",
) -> LoadedDataset:
    """Read the dataset ``descriptor`` describes from ``tables`` (see the module docstring);
    ``strict`` refuses columns the descriptor does not declare. Raises
    :class:`~qoe_analysis.dataset.problems.DatasetError` with every problem found."""
    problems = Problems()
    spec = parse_descriptor(descriptor, source, problems)
    parts = _parts(spec, tables, problems, strict) if spec.resources else []
    problems.raise_if_any()
    wide = pd.concat([p.frame for p in parts], ignore_index=True)
    facts = _design(spec, wide, problems)
    long = _long(spec, wide)
    facts.kept_files = long[FILE].to_numpy()
    counts = wide.groupby(FILE)[RATER].nunique()
    facts.raters_per_file = [int(counts.get(i, 0)) for i in range(len(spec.resources))]
    slot = [RATER, SESSION, SCENARIO, ITEM, *([TRAINING] if TRAINING in long.columns else [])]
    where = design.Where(long, [r.path for r in spec.resources], _names(spec))
    design.check_unique_slots(long, slot, where, problems)
    problems.raise_if_any()
    items = spec.sidecar()
    try:
        ratings = validate_ratings(_tidy(spec, long), sidecar=parse_sidecar(items))
    except RatingsValidationError as exc:  # rules the checks above missed: still one list
        # Lines of the merged table mean nothing in the files: the rule and column only.
        for found in exc.problems:
            problems.add(
                f"the merged table breaks a rule of the tidy format: {found.rule}",
                column=found.column,
            )
        raise DatasetError(problems.items, total=problems.count) from None
    covariates = pd.DataFrame(
        {f.name: long[covariate_column(f.name)].to_numpy() for f in spec.role("covariate")}
    )
    origin = pd.DataFrame(
        {
            "file": [spec.resources[i].path for i in long[FILE].tolist()],
            "line": long[LINE].to_numpy(),
        }
    )
    summary = dataset_summary(spec, parts, ratings, facts, namespaces(spec))
    return LoadedDataset(
        ratings=ratings,
        items=items,
        warnings=dataset_warnings(spec, summary, facts),
        summary=summary,
        covariates=covariates,
        origin=origin,
        descriptor=spec,
    )
