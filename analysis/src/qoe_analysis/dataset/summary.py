"""What the loader tells about a dataset: ``meta.dataset`` of the document and the warnings
on how the data was read (docs/importing-data.md, "What the document says").

Warnings (``where`` = ``meta.dataset``), each only when it applies:

* ``undeclared_columns`` — columns of the files that the descriptor does not declare: never
  analysed (``--strict`` refuses them);
* ``missing_values`` — gaps per column: ratings dropped, questionnaire answers missing
  (the level "(missing)"), covariates left empty;
* ``derived_sessions`` — no session column: sessions derived, and how many began at a
  repeated condition;
* ``generated_scenarios`` — no scenario column: one code per distinct condition rated (a
  condition whose ratings are all missing gets none: the count is the web import's
  scenarios);
* ``assumed_pace`` — no pace column and no ``game_paces``: every game's pace is "medium".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from qoe_analysis.dataset.descriptor import Descriptor
from qoe_analysis.dataset.part import Part
from qoe_analysis.evidence.warning_text import listed, make
from qoe_analysis.schema.dataset_types import DatasetFile, DatasetSummary
from qoe_analysis.schema.document import DocWarning
from qoe_analysis.tidy.columns import TRAINING
from qoe_analysis.tidy.design import GAME, PACE, RATER, RATING, SCENARIO, SESSION

__all__ = ["WHERE", "Facts", "dataset_summary", "dataset_warnings"]

WHERE = "meta.dataset"
_ROLE_COLUMNS = {
    "rater": RATER,
    "session": SESSION,
    "game": GAME,
    "pace": PACE,
    "scenario": SCENARIO,
    "training": TRAINING,
}


@dataclass
class Facts:
    """What the design step found (:func:`qoe_analysis.dataset.loader.load_dataset`)."""

    unanswered: dict[str, int] = field(default_factory=dict)
    n_conditions: int = 0
    scenarios: Literal["column", "generated"] = "column"
    sessions: Literal["column", "derived"] = "column"
    repeats: int = 0
    pace: Literal["column", "game_paces", "assumed"] = "column"
    #: the file index of each analysed row and the raters of each file
    kept_files: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    raters_per_file: list[int] = field(default_factory=list)


def _field_columns(descriptor: Descriptor) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in descriptor.fields:
        if f.role in _ROLE_COLUMNS:
            out[f.name] = [_ROLE_COLUMNS[f.role]]
        elif f.role == "factor":
            out[f.name] = list(f.columns)
        elif f.role == "rating":
            out[f.name] = [RATING]
        elif f.role == "questionnaire":
            out[f.name] = [f.name]
        else:
            out[f.name] = []
    for key in descriptor.context_keys:
        out[key] = [key]
    return out


def _files(
    descriptor: Descriptor, parts: list[Part], facts: Facts, spaces: list[str | None]
) -> list[DatasetFile]:
    kept = np.bincount(facts.kept_files.astype(np.int64), minlength=len(parts))
    return [
        {
            "path": resource.path,
            "namespace": space,
            "context": dict(resource.context),
            "rows": part.rows,
            "blank_rows": part.blank_rows,
            "ratings_kept": int(kept[i]),
            "ratings_dropped": int(sum(part.dropped.values())),
            "n_raters": facts.raters_per_file[i] if i < len(facts.raters_per_file) else 0,
            "undeclared_columns": list(part.undeclared),
            "missing_fields": list(resource.missing_fields),
        }
        for i, (resource, part, space) in enumerate(
            zip(descriptor.resources, parts, spaces, strict=True)
        )
    ]


def _summed(counts: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in counts:
        for key, n in c.items():
            out[key] = out.get(key, 0) + n
    return out


def dataset_summary(
    descriptor: Descriptor,
    parts: list[Part],
    ratings: pd.DataFrame,
    facts: Facts,
    spaces: list[str | None],
) -> DatasetSummary:
    """The JSON-ready ``meta.dataset``
    (:class:`~qoe_analysis.schema.dataset_types.DatasetSummary`)."""
    files = _files(descriptor, parts, facts, spaces)
    dropped = _summed([p.dropped for p in parts])
    n_items = len(descriptor.role("rating"))
    raters = ratings[RATER].astype(str).unique().tolist()
    per_space: dict[str, int] = {}
    names = {s or "" for s in spaces}
    for rater in raters:
        space = rater.split(".", 1)[0] if "." in rater and rater.split(".", 1)[0] in names else ""
        per_space[space] = per_space.get(space, 0) + 1
    undeclared: list[str] = []
    for part in parts:
        undeclared += [c for c in part.undeclared if c not in undeclared]
    return {
        "name": descriptor.name,
        "title": descriptor.title,
        "files": files,
        "ratings": {
            "read": sum(p.rows for p in parts) * n_items,
            "kept": len(ratings),
            "dropped": sum(dropped.values()),
            "dropped_by_reason": {
                f"missing value in {item}": n for item, n in dropped.items() if n
            },
        },
        "items": [f.item for f in descriptor.role("rating") if f.item is not None],
        "missing": {k: n for k, n in _summed([p.missing for p in parts]).items() if n},
        "unanswered": {k: n for k, n in facts.unanswered.items() if n},
        "undeclared_columns": undeclared,
        "rater_namespaces": dict(sorted(per_space.items())),
        "n_raters": len(raters),
        "n_sessions": int(ratings[SESSION].nunique()),
        "n_conditions": facts.n_conditions,
        "sessions": facts.sessions,
        "sessions_from_repeats": facts.repeats,
        "scenarios": facts.scenarios,
        "pace": facts.pace,
        "field_columns": _field_columns(descriptor),
        "questionnaire": [f.name for f in descriptor.role("questionnaire")],
        "covariates": [f.name for f in descriptor.role("covariate")],
        "context": descriptor.context_keys,
        "ignored": [f.name for f in descriptor.role("ignore")],
    }


def _where_undeclared(summary: DatasetSummary) -> str:
    files = [f["path"] for f in summary["files"] if f["undeclared_columns"]]
    return listed(files)


def _missing_text(descriptor: Descriptor, summary: DatasetSummary) -> list[str]:
    roles = {f.name: f for f in descriptor.fields}
    texts = []
    for column, n in summary["missing"].items():
        spec = roles.get(column)
        role = spec.role if spec is not None else ""
        if role == "rating":
            texts.append(f"{column} {n} (ratings dropped)")
        elif role == "questionnaire":
            raters = summary["unanswered"].get(column, 0)
            texts.append(f"{column} {n} ({raters} raters without an answer: level '(missing)')")
        elif role == "covariate":
            texts.append(f"{column} {n} (covariate, left empty)")
        else:
            texts.append(f"{column} {n}")
    return texts


def dataset_warnings(
    descriptor: Descriptor, summary: DatasetSummary, facts: Facts
) -> list[DocWarning]:
    """The warnings of the module docstring, in its order."""
    out: list[DocWarning] = []
    if summary["undeclared_columns"]:
        out.append(
            make(
                "undeclared_columns",
                WHERE,
                "columns the descriptor does not declare are never analysed: "
                f"{listed(summary['undeclared_columns'], 8)} "
                f"(in {_where_undeclared(summary)}); give each a role (ignore to silence "
                "this), or refuse them with --strict",
            )
        )
    missing = _missing_text(descriptor, summary)
    if missing:
        out.append(
            make(
                "missing_values",
                WHERE,
                f"missing values per column: {listed(missing, 8)}; {summary['ratings']['kept']} "
                f"of {summary['ratings']['read']} rating cells analysed",
            )
        )
    if facts.sessions == "derived":
        out.append(
            make(
                "derived_sessions",
                WHERE,
                f"no session column: {summary['n_sessions']} sessions derived, one per rater, game "
                f"and file in file order, {facts.repeats} of them begun where a rater rated a "
                "condition again",
            )
        )
    if facts.scenarios == "generated":
        width = max(4, len(str(facts.n_conditions)))
        out.append(
            make(
                "generated_scenarios",
                WHERE,
                f"no scenario column: {facts.n_conditions} scenario codes generated, one per "
                f"distinct condition rated (C{1:0{width}d} to C{facts.n_conditions:0{width}d}, in "
                "sorted order of the factor values)",
            )
        )
    if facts.pace == "assumed":
        out.append(
            make(
                "assumed_pace",
                WHERE,
                "no pace column and no game_paces: every game is taken as pace 'medium', so "
                "thresholds and the joint model have one pace class",
            )
        )
    return out
