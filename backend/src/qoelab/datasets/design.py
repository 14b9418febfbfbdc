"""A loaded dataset's design as a study's: the study row, its games, its conditions as
scenarios and its per-session factors as questions (docs/api.md, "Importing a dataset").

* The study is **analysis-only** (``Study.analysis_only``): analysed like any study, never
  run at a station. Its rating items and acceptance are the descriptor's
  (:func:`qoe_analysis.scales.parse_sidecar` of the loader's items); no training.
* **Games** with the pace the data, the descriptor's ``game_paces`` or the loader's
  assumption (``medium``) gave them.
* **Conditions** become scenarios: the loader's scenario codes (generated ``C0001``… when
  the files had none; a declared code that is no scenario code, 1-8 capital letters or
  digits, makes every scenario a code ``S0001``… in sorted order, the dataset's name as its
  label), each with the factor values of its condition per direction, the other agent
  fields neutral. At most ``QOELAB_MAX_IMPORTED_CONDITIONS`` of them.
* The **context** values and **questionnaire** answers become the study's questions (asked
  "pre", one answer per session), keyed by their column's name, so the analysis names
  them as the CLI does; a name that is one of QoE Lab's own participant columns (age,
  skill, genre_preference) gets ``_answer`` appended. A numeric column is an ``integer``
  question (its answers written as numbers), any other a ``choice`` of the texts found
  (the loader's ``(missing)`` level included).

The limits a study puts on names (a game name at most 120 characters, a question key at
most 60) are checked first, every breach a problem (:func:`study_problems`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.text import slugify
from netem_profile import DIRECTION_PREFIXES, unflatten_direction
from netem_profile import factor_columns as registry_columns
from qoe_analysis.dataset.problems import Problem
from qoe_analysis.tidy.columns import GAME, PACE, SCENARIO

from qoelab.exports.bulk_insert import insert_rows
from qoelab.exports.tidy_cells import PARTICIPANT_COLUMNS
from qoelab.studies.directions import full_direction, split_direction
from qoelab.studies.models import Game, Scenario, Study

if TYPE_CHECKING:
    import pandas as pd
    from qoe_analysis.dataset.loader import LoadedDataset

GAME_NAME_CHARS = 120
QUESTION_KEY_CHARS = 60
LABEL_CHARS = 120
_SCENARIO_CODE = re.compile(r"[A-Z][A-Z0-9]{0,7}")


def factor_columns(ratings: pd.DataFrame) -> list[str]:
    """The registry's factor columns the loaded table has (``ds_delay_ms``…)."""
    return [c for c in registry_columns() if c in ratings.columns]


def question_columns(dataset: LoadedDataset) -> list[str]:
    """The per-session factor columns: the context keys, then the questionnaire fields."""
    spec = dataset.descriptor
    return [*spec.context_keys, *(f.name for f in spec.role("questionnaire"))]


def question_key(column: str) -> str:
    """A column's question key: its name, unless QoE Lab's own participant columns have it."""
    return f"{column}_answer" if column in PARTICIPANT_COLUMNS else column


def study_problems(dataset: LoadedDataset) -> list[Problem]:
    """What the dataset breaks of a study's limits (see the module doc)."""
    ratings = dataset.ratings
    problems: list[Problem] = []
    limit = int(settings.QOELAB_MAX_IMPORTED_CONDITIONS)
    conditions = int(ratings[SCENARIO].nunique())
    if conditions > limit:
        problems.append(
            Problem(
                None,
                None,
                None,
                str(conditions),
                f"a study imported from a dataset has at most {limit} conditions "
                "(QOELAB_MAX_IMPORTED_CONDITIONS)",
            )
        )
    for game in sorted({str(g) for g in ratings[GAME].unique()}):
        if len(game) > GAME_NAME_CHARS:
            rule = f"a game's name is at most {GAME_NAME_CHARS} characters in a study"
            problems.append(Problem(None, None, None, game, rule))
    for column in question_columns(dataset):
        if len(question_key(column)) > QUESTION_KEY_CHARS:
            rule = (
                "a questionnaire or context column's name is at most "
                f"{QUESTION_KEY_CHARS} characters in a study"
            )
            problems.append(Problem(None, None, column, None, rule))
    return problems


def _slug(title: str) -> str:
    base = slugify(title)[:60].strip("-") or "dataset"
    taken = set(Study.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _plain(value: Any) -> Any:
    """A cell as JSON: an integral number as an int, numpy scalars as Python's."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def questions(dataset: LoadedDataset) -> list[dict[str, Any]]:
    """The study's questions for the per-session factor columns (see the module doc)."""
    import pandas as pd

    out: list[dict[str, Any]] = []
    for column in question_columns(dataset):
        values = dataset.ratings[column]
        question: dict[str, Any] = {
            "key": question_key(column),
            "phase": "pre",
            "text": column,
            "required": False,
        }
        if pd.api.types.is_numeric_dtype(values.dtype):
            question["kind"] = "integer"
        else:
            question["kind"] = "choice"
            question["choices"] = sorted({str(v) for v in values.unique()})
        out.append(question)
    return out


def create_study(dataset: LoadedDataset, *, title: str, owner: Any) -> Study:
    """The analysis-only study row."""
    from qoe_analysis.scales import parse_sidecar

    sidecar = parse_sidecar(dataset.items)
    description = dataset.descriptor.title or dataset.descriptor.name or ""
    return Study.objects.create(
        slug=_slug(title),
        title=title[:200],
        description=f"Imported from the dataset {description}".strip() if description else "",
        owner=owner if getattr(owner, "is_authenticated", False) else None,
        rating_items=list(sidecar.items),
        acceptance=sidecar.acceptance,
        questionnaire=questions(dataset),
        analysis_only=True,
    )


def create_games(study: Study, ratings: pd.DataFrame) -> dict[str, int]:
    """A game per distinct name with its pace; name → id."""
    pairs = ratings[[GAME, PACE]].astype(str).drop_duplicates()
    Game.objects.bulk_create(
        Game(study=study, name=name, pace=pace)
        for name, pace in pairs.itertuples(index=False, name=None)
    )
    return dict(Game.objects.filter(study=study).values_list("name", "id"))


@dataclass(frozen=True)
class Conditions:
    """The study's scenarios: the loader's scenario code → (scenario id, code stored, the
    profile every rating of it carries)."""

    ids: dict[str, int]
    profiles: dict[str, dict[str, dict[str, Any]]]

    def __len__(self) -> int:
        return len(self.ids)


def _codes(names: list[str]) -> dict[str, str]:
    """The stored code of each of the loader's scenario names (see the module doc)."""
    if all(_SCENARIO_CODE.fullmatch(n) for n in names):
        return {n: n for n in names}
    width = max(4, len(str(len(names))))
    return {n: f"S{i + 1:0{width}d}" for i, n in enumerate(sorted(names))}


def _label(name: str, code: str, values: dict[str, Any]) -> str:
    if name != code:
        text = name
    else:
        text = ", ".join(
            f"{c}={v:g}" if isinstance(v, float) else f"{c}={v}" for c, v in values.items()
        )
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def create_scenarios(study: Study, ratings: pd.DataFrame) -> Conditions:
    """A scenario per condition (see the module doc), inserted in bulk."""
    columns = factor_columns(ratings)
    firsts = ratings.drop_duplicates(SCENARIO)[[SCENARIO, *columns]]
    names = [str(n) for n in firsts[SCENARIO].tolist()]
    codes = _codes(names)
    rows: list[dict[str, Any]] = []
    profiles: dict[str, dict[str, dict[str, Any]]] = {}
    ordered = sorted(
        zip(names, firsts[columns].to_dict("records"), strict=True), key=lambda p: codes[p[0]]
    )
    for position, (name, record) in enumerate(ordered):
        values = {str(c): _plain(v) for c, v in record.items()}
        row: dict[str, Any] = {"study_id": study.pk, "code": codes[name], "version": 1}
        row.update(position=position, is_baseline=False, label=_label(name, codes[name], values))
        profile = {}
        for direction, prefix in DIRECTION_PREFIXES.items():
            flat = {c.split("_", 1)[1]: v for c, v in values.items() if c.startswith(f"{prefix}_")}
            cells, extra = split_direction(unflatten_direction(flat))
            row.update({f"{prefix}_{field}": value for field, value in cells.items()})
            row[f"{prefix}_extra"] = extra
            profile[direction] = full_direction(cells, extra)
        profiles[name] = profile
        rows.append(row)
    insert_rows(Scenario, rows, now=study.created_at, chunk=2000)
    stored = dict(Scenario.objects.filter(study=study).values_list("code", "id"))
    return Conditions({n: stored[codes[n]] for n in names}, profiles)
