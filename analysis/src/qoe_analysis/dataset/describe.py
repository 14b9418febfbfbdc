"""``qoe-analysis describe``: a draft descriptor from data files, for the analyst to edit.

Per column (over all files): its Table Schema type (``integer``, ``number``, ``boolean``,
else ``string``; read from the cells that are not missing), distinct and missing counts,
the range of a numeric column and a few examples (``observed``), and a candidate role by
the column's name and content (:mod:`qoe_analysis.dataset.guess`) with a ``why`` note. The
missing values are the empty cell and whichever of ``NA``, ``N/A``, ``NaN``, ``null``…
occur. Each file is a resource; among several, each gets a namespace (its name's stem) and a
``testbed`` context to edit or drop.

A tidy QoE Lab CSV (:data:`qoe_analysis.tidy.columns.TIDY_COLUMNS`) drafts its *implied
descriptor*: what the tidy loader means by its columns (docs/importing-data.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.dataset.cells import raw_texts
from qoe_analysis.dataset.descriptor import PROFILE
from qoe_analysis.dataset.guess import Column, guess_roles
from qoe_analysis.dataset.part import slug
from qoe_analysis.dataset.problems import Problems
from qoe_analysis.dataset.reading import read_csv_cells

__all__ = ["MISSING_TOKENS", "describe_files", "describe_tables", "profile_column"]

#: texts read as missing when a column has them (the empty cell always)
MISSING_TOKENS = ("", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "None")
_INTEGER = re.compile(r"[+-]?\d+")
_TRUE, _FALSE = {"true", "True", "TRUE"}, {"false", "False", "FALSE"}
_EXAMPLES = 3


def _type(texts: list[str]) -> str:
    if not texts:
        return "string"
    if all(t in _TRUE or t in _FALSE for t in texts):
        return "boolean"
    if all(_INTEGER.fullmatch(t) for t in texts):
        return "integer"
    numbers = pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=float)
    return "number" if bool(np.isfinite(numbers).all()) else "string"


def profile_column(name: str, cells: Sequence[str]) -> Column:
    """What a column's cells show: type, counts, range, examples, missing tokens found."""
    present = [c for c in cells if c not in MISSING_TOKENS]
    tokens = sorted({c for c in cells if c in MISSING_TOKENS and c}, key=MISSING_TOKENS.index)
    type_ = _type(present)
    distinct = list(dict.fromkeys(present))
    observed: dict[str, Any] = {
        "type": type_,
        "distinct": len(distinct),
        "missing": len(cells) - len(present),
    }
    if type_ in ("integer", "number") and present:
        numbers = pd.to_numeric(pd.Series(present, dtype=object)).to_numpy(dtype=float)
        low, high = float(numbers.min()), float(numbers.max())
        observed["min"] = int(low) if type_ == "integer" else low
        observed["max"] = int(high) if type_ == "integer" else high
    observed["examples"] = distinct[:_EXAMPLES]
    return Column(name=name, type=type_, observed=observed, missing_tokens=tokens)


def _resources(paths: Sequence[str]) -> list[dict[str, Any]]:
    several = len(paths) > 1
    out = []
    for path in paths:
        resource: dict[str, Any] = {"path": path}
        if several:
            space = slug(PurePosixPath(path).stem).replace(".", "_")[:20] or "part"
            resource["namespace"] = space
            resource["context"] = {"testbed": space}
        out.append(resource)
    return out


def describe_tables(
    tables: Mapping[str, pd.DataFrame], name: str | None = None
) -> tuple[dict[str, Any], list[str]]:
    """(draft descriptor, notes for the analyst) of the tables of text cells, keyed by the
    path the descriptor should name."""
    cells: dict[str, list[str]] = {}
    for table in tables.values():
        blank = np.ones(len(table), dtype=bool)  # a blank line: no row
        texts = {str(c): raw_texts(table[c]) for c in table.columns}
        for values in texts.values():
            blank &= values == ""
        for column, values in texts.items():
            cells.setdefault(column, []).extend(values[~blank].tolist())
    columns = [profile_column(c, v) for c, v in cells.items()]
    fields, notes = guess_roles(columns)
    resources = _resources(list(tables))
    by_name = {f["name"]: f for f in fields}
    for resource, table in zip(resources, tables.values(), strict=True):
        absent = [c for c in cells if c not in {str(x) for x in table.columns}]
        if absent:
            resource["missing_fields"] = absent
            notes += [
                f"{resource['path']} has no column '{c}'"
                + (
                    ""
                    if by_name[c]["role"] in ("questionnaire", "covariate", "ignore")
                    else f": a {by_name[c]['role']} column is needed in every file"
                )
                for c in absent
            ]
    tokens = sorted({t for c in columns for t in c.missing_tokens}, key=MISSING_TOKENS.index)
    descriptor = {
        "profile": PROFILE,
        "version": 1,
        "name": name or "dataset",
        "title": name or "dataset",
        "resources": resources,
        "schema": {"missingValues": ["", *tokens], "fields": fields},
    }
    return descriptor, notes


def describe_files(
    paths: Sequence[Path], out: Path | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The draft descriptor of the CSV files at ``paths``, resource paths relative to the
    folder of ``out`` (the descriptor's file) when given, else as given."""
    tables: dict[str, pd.DataFrame] = {}
    problems = Problems()
    for path in paths:
        key = os.path.relpath(path, out.parent) if out is not None else str(path)
        try:
            tables[PurePosixPath(Path(key)).as_posix()] = read_csv_cells(path)
        except (OSError, ValueError) as exc:  # every file's problem, as the loader lists them
            problems.add(f"the file cannot be read: {' '.join(str(exc).split())}", file=path.name)
    problems.raise_if_any()
    name = slug(paths[0].stem) if len(paths) == 1 else slug(paths[0].parent.name) or None
    return describe_tables(tables, name)
