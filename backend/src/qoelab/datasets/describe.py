"""``POST /datasets/describe/``: a draft descriptor of uploaded CSV files, and their columns
for the web import's column-mapping step.

The draft is the one ``qoe-analysis describe`` writes
(:func:`qoe_analysis.dataset.describe.describe_tables`: types, candidate roles with a
``why`` note, namespaces and a ``testbed`` context among several files); each resource's
``path`` is the file's name as uploaded, so the import takes the same files back. Each
column of each file is listed with its type and its distinct and missing counts *in that
file*, and the role the draft gives it. Only a bounded sample of each file is read
(:func:`qoelab.datasets.uploads.sample_file`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from qoelab.datasets.problems import DatasetRefused, problem
from qoelab.datasets.uploads import Sample, sample_file


def _names(uploads: Sequence[Any]) -> list[str]:
    names = [str(u.name or f"file {i + 1}") for i, u in enumerate(uploads)]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise DatasetRefused(
            [problem("two uploaded files have this name: rename one", file=n) for n in twice]
        )
    return names


def _columns(samples: Sequence[Sample], fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every column of every file: its type and counts in that file, the draft's role."""
    from qoe_analysis.dataset.cells import raw_texts
    from qoe_analysis.dataset.describe import profile_column

    by_name = {f["name"]: f for f in fields}
    out: list[dict[str, Any]] = []
    for sample in samples:
        table = sample.table
        texts = {str(c): raw_texts(table[c]) for c in table.columns}
        blank = None
        for values in texts.values():  # a blank line: no row (as the loader skips it)
            blank = values == "" if blank is None else blank & (values == "")
        for name, values in texts.items():
            cells = values[~blank].tolist() if blank is not None else []
            seen = profile_column(name, cells)
            field = by_name.get(name, {})
            out.append(
                {
                    "file": sample.name,
                    "name": name,
                    "type": seen.type,
                    "distinct": int(seen.observed["distinct"]),
                    "missing": int(seen.observed["missing"]),
                    "role": field.get("role", "ignore"),
                    "why": field.get("why", ""),
                }
            )
    return out


def describe_uploads(uploads: Sequence[Any]) -> dict[str, Any]:
    """``{"descriptor", "columns", "notes", "files"}`` for the uploaded CSV files (400
    :class:`DatasetRefused` naming each file that cannot be read)."""
    from qoe_analysis.dataset.describe import describe_tables
    from qoe_analysis.dataset.part import slug
    from qoe_analysis.jsonable import json_ready

    if not uploads:
        raise DatasetRefused([problem("send one or more CSV files in the form field 'files'")])
    names = _names(uploads)
    samples: list[Sample] = []
    refused = []
    for upload, name in zip(uploads, names, strict=True):
        try:
            samples.append(sample_file(upload, name))
        except DatasetRefused as exc:  # every file's problem, not only the first's
            refused.extend(exc.problems)
    if refused:
        raise DatasetRefused(refused)
    stem = slug(names[0].rsplit(".", 1)[0]) if len(names) == 1 else ""
    descriptor, notes = describe_tables({s.name: s.table for s in samples}, stem or None)
    answer: dict[str, Any] = json_ready(
        {
            "descriptor": descriptor,
            "columns": _columns(samples, descriptor["schema"]["fields"]),
            "notes": notes,
            "files": [
                {"file": s.name, "rows_read": len(s.table), "complete": s.complete} for s in samples
            ],
        }
    )
    return answer
