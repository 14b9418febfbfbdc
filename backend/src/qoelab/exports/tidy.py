"""Ratings out: the tidy CSV of ``qoe-analysis`` (the JSON document and sureal's dataset:
:mod:`qoelab.exports.study_exports`).

The tidy CSV is in long format, one row per rating *and rating item* (an optional item
left without a value has no row), with the columns of
:data:`qoe_analysis.tidy.columns.TIDY_COLUMNS` (the contract between the two)::

    rater_id, session_id, game, game_pace, scenario,
    ds_delay_ms, us_delay_ms, ds_jitter_ms, us_jitter_ms, …, ds_corrupt_pct, us_corrupt_pct,
    item, rating, training, response_ms, since_end_ms, agent_backend, agent_version

— one column per impairment factor of the registry and direction
(:func:`netem_profile.factor_columns`, ``ds_`` = downstream, server→client; ``us_`` =
upstream) — followed by participant/session factor columns: ``age``, ``skill``,
``genre_preference`` (yes/no: does the rater favour the game's genre) and one column per
choice, integer or boolean question of the study's questionnaire (e.g. ``willing_to_pay``,
``attitude``).

The impairment columns hold what the agent *reported as installed* during play: the
rating's ``applied_profile``, which is the agent's verified read-back
(``installed`` of ``PUT /v1/profile``: per direction every field of the agent's profile,
``gilbert_elliott`` an object or null), or, for imported ratings, the profile the import
stored. :func:`netem_profile.flatten_direction` turns each direction into factor values (a
field the profile does not hold is neutral, e.g. jitter in a rating imported from a
delay/loss-only CSV).

``item`` is the rating item's key, ``rating`` the value on its scale (the items and their
scales are the sidecar, :func:`qoelab.studies.rating_items.sidecar`), ``training`` 1 for a
rating of the training phase (exported, marked; the analysis leaves it out), the times in
ms (empty when unknown, e.g. for imported ratings). ``agent_backend`` and ``agent_version``
are the rating's provenance (``Rating.provenance``): the netem agent backend that applied
the impairment (``netlink``; ``dry-run`` = nothing applied to a kernel; ``import`` for an
imported rating whose file did not say) and the agent's version; empty when unknown.

Rules: only ratings of participants who were not withdrawn (an excluded participant's
ratings are kept but never exported, :mod:`qoelab.participants.withdrawal`); only ratings
of completed sessions by default; the retest round (round 2) is left
out by default because the analysis allows one rating per rater, session and scenario —
with ``include_retest`` it is exported under the session id ``<id>-retest``. A factor
column that would have a missing value in any row is left out entirely (the analysis
rejects missing values). A scenario row of a later study version is named ``CODE.vN``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from qoe_analysis.io.csv_cells import escape_text_cell
from qoe_analysis.tidy.columns import AGENT_BACKEND, AGENT_VERSION, FACTOR_COLUMNS, TIDY_COLUMNS

from qoelab.exports.tidy_cells import (
    PARTICIPANT_COLUMNS,
    csv_cells,
    factor_text,
    factor_values,
    is_text_column,
    optional_text,
    provenance_columns,
    question_columns,
    scenario_labels,
    value_text,
)
from qoelab.exports.tidy_quality_control import with_quality_control
from qoelab.participants.withdrawal import taking_part
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.state_machine import State
from qoelab.studies.models import Study


def ratings_for_export(study: Study, *, include_incomplete: bool = False) -> QuerySet[Rating]:
    ratings = (
        Rating.objects.filter(session__study=study)
        .filter(**taking_part("session__participant__"))  # withdrawn: left out
        .select_related("session__participant", "session__game", "scenario")
    )
    if not include_incomplete:
        ratings = ratings.filter(session__state=State.COMPLETED)
    return ratings.order_by("session_id", "order_index")


@dataclass(frozen=True)
class TidyTable:
    """The tidy table: ``lines`` are its rows as CSV lines (text cells escaped,
    :meth:`cell`; each ending in ``\\n``), ``pieces`` the same rows as they are, not
    escaped: per row, consecutive runs of cells (shared between rows) that together are
    the row's cells in ``columns`` order (:attr:`records`)."""

    columns: list[str]
    lines: list[str]
    pieces: list[tuple[tuple[str, ...], ...]]
    #: Further numeric columns (the study's integer questions).
    numeric: frozenset[str] = frozenset()

    def __len__(self) -> int:
        return len(self.lines)

    @property
    def records(self) -> list[tuple[str, ...]]:
        """The rows as tuples of cell texts in ``columns`` order."""
        return [tuple(chain.from_iterable(runs)) for runs in self.pieces]

    @property
    def rows(self) -> list[dict[str, str]]:
        """The rows as dictionaries column → text (for readers that want names)."""
        return [dict(zip(self.columns, record, strict=True)) for record in self.records]

    def cell(self, column: str, value: str) -> str:
        """A cell as written: a text cell that a spreadsheet would run gets a ``'``."""
        return str(escape_text_cell(value)) if is_text_column(column, self.numeric) else value

    def to_csv(self) -> str:
        """The CSV text: a header of ``columns``, then ``lines``."""
        return csv_cells(self.columns) + "\n" + "".join(self.lines)


class _JsonTexts:
    """JSON texts decoded once per distinct text (a study's ratings repeat a few applied
    profiles, provenances and value sets thousands of times)."""

    def __init__(self) -> None:
        self._decoded: dict[str | None, Any] = {}

    def __call__(self, text: str | None) -> Any:
        try:
            return self._decoded[text]
        except KeyError:
            value = None if text is None else json.loads(text)
            self._decoded[text] = value
            return value


def _as_text(field: str) -> Cast:
    """A JSON column read as its text, so that it is decoded once per distinct value."""
    return Cast(field, output_field=TextField())


def _answers(study: Study) -> dict[int, dict[str, Any]]:
    """Session id → question key → the decoded answer."""
    decode = _JsonTexts()
    answers: dict[int, dict[str, Any]] = {}
    rows = Answer.objects.filter(session__study=study).values_list(
        "session_id", "key", _as_text("value")
    )
    for session_id, key, text in rows:
        answers.setdefault(session_id, {})[key] = decode(text)
    return answers


@dataclass(frozen=True)
class _Part:
    """Consecutive cells of a row, as they are and as written in a CSV line."""

    cells: tuple[str, ...]
    text: str


def _part(cells: tuple[str, ...], columns: Sequence[str], numeric: frozenset[str]) -> _Part:
    escaped = [
        str(escape_text_cell(value)) if is_text_column(column, numeric) else value
        for column, value in zip(columns, cells, strict=True)
    ]
    return _Part(cells, csv_cells(escaped))


_HEAD = TIDY_COLUMNS[:4]  # rater_id, session_id, game, game_pace
_MIDDLE = ("scenario", *FACTOR_COLUMNS)
_ITEM = ("item", "rating")
_TAIL = ("training", "response_ms", "since_end_ms", AGENT_BACKEND, AGENT_VERSION)
assert (*_HEAD, *_MIDDLE, *_ITEM, *_TAIL) == TIDY_COLUMNS


def tidy_table(
    study: Study, *, include_retest: bool = False, include_incomplete: bool = False
) -> TidyTable:
    """The tidy table of the module's rules (see the module docstring).

    Read column-wise: one query for the ratings' needed columns (no model objects), their
    JSON columns as text. A row is made of parts that repeat: the session's (rater,
    session, game; participant and answer columns), the scenario's with its applied
    profile's factor values, the item and value, the provenance. Each part is computed,
    escaped and quoted once per distinct value, and a CSV line is the join of its parts'
    texts (:func:`csv_cells`).
    """
    labels = scenario_labels(study)
    questions = question_columns(study)
    items = [item["key"] for item in study.rating_items]
    numeric = frozenset(q["key"] for q in study.questionnaire if q.get("kind") == "integer")
    answers = _answers(study)
    # Session id → participant code, age, skill, game name, game pace.
    sessions: dict[int, tuple[str, int | None, str, str, str]] = {
        pk: (code, age, skill, game, pace)
        for pk, code, age, skill, game, pace in Session.objects.filter(study=study).values_list(
            "id",
            "participant__code",
            "participant__age",
            "participant__skill",
            "game__name",
            "game__pace",
        )
    }
    ratings = Rating.objects.filter(session__study=study, **taking_part("session__participant__"))
    if not include_incomplete:
        ratings = ratings.filter(session__state=State.COMPLETED)
    if not include_retest:
        ratings = ratings.filter(round__lte=1)
    # ITU-T P.808 checks: exported after the analysed ratings (tidy_quality_control)
    qc_ratings, ratings = ratings.exclude(kind="scenario"), ratings.filter(kind="scenario")
    columns = ratings.order_by("session_id", "order_index").values_list(
        "session_id",
        "round",
        "scenario_id",
        "training",
        "response_ms",
        "since_end_ms",
        _as_text("applied_profile"),
        _as_text("provenance"),
        _as_text("values"),
    )
    decode = _JsonTexts()
    middles: dict[tuple[int, str | None], _Part] = {}
    provenances: dict[str | None, _Part] = {}
    item_parts: dict[str | None, tuple[_Part, ...]] = {}
    # Per emitted rating: its session and round, scenario part, item parts and tail.
    rated: list[tuple[int, int, _Part, tuple[_Part, ...], tuple[str, ...], str]] = []
    for (
        session_id,
        round_,
        scenario_id,
        training,
        response_ms,
        since_end_ms,
        applied_text,
        provenance_text,
        values_text,
    ) in columns:
        present = item_parts.get(values_text)
        if present is None:
            values = decode(values_text)
            present = item_parts[values_text] = tuple(
                _part((item, value_text(values[item])), _ITEM, numeric)
                for item in items
                if item in values
            )
        if not present:
            continue  # no value for any declared item: no row
        middle = middles.get((scenario_id, applied_text))
        if middle is None:
            flat = factor_values(decode(applied_text))
            cells = (labels[scenario_id], *(flat[column] for column in FACTOR_COLUMNS))
            middle = middles[(scenario_id, applied_text)] = _part(cells, _MIDDLE, numeric)
        provenance = provenances.get(provenance_text)
        if provenance is None:
            known = provenance_columns(decode(provenance_text))
            provenance = provenances[provenance_text] = _part(
                (known[AGENT_BACKEND], known[AGENT_VERSION]), _TAIL[3:], numeric
            )
        # training, response_ms and since_end_ms are digits or empty: never quoted.
        measured = (
            "1" if training else "0",
            optional_text(response_ms),
            optional_text(since_end_ms),
        )
        tail = (*measured, *provenance.cells)
        tail_text = f"{measured[0]},{measured[1]},{measured[2]},{provenance.text}"
        rated.append((session_id, round_, middle, present, tail, tail_text))
    # A factor column is kept only when no emitted row would leave it empty; its value is
    # the session's (participant or answer), so the sessions with a row decide.
    candidates: dict[int, dict[str, str]] = {}
    for session_id, *_ in rated:
        if session_id in candidates:
            continue
        _code, age, skill, _game, _pace = sessions[session_id]
        session_answers = answers.get(session_id, {})
        candidates[session_id] = {
            "age": factor_text(age),
            "skill": skill,
            "genre_preference": factor_text(session_answers.get("genre_preference")),
            **{key: factor_text(session_answers.get(key)) for key in questions},
        }
    factors_kept = [
        column
        for column in [*PARTICIPANT_COLUMNS, *questions]
        if candidates and all(cells[column] != "" for cells in candidates.values())
    ]
    trailers: dict[int, _Part] = {}
    for session_id, session_cells in candidates.items():
        trailer = _part(
            tuple(session_cells[column] for column in factors_kept), factors_kept, numeric
        )
        # The comma before the trailer; no trailer (no factor column): nothing.
        trailers[session_id] = _Part(trailer.cells, "," + trailer.text if factors_kept else "")
    heads: dict[tuple[int, int], _Part] = {}
    pieces: list[tuple[tuple[str, ...], ...]] = []
    lines: list[str] = []
    for session_id, round_, middle, present, tail, tail_text in rated:
        head = heads.get((session_id, round_))
        if head is None:
            code, _age, _skill, game, pace = sessions[session_id]
            label = str(session_id) if round_ <= 1 else f"{session_id}-retest"
            head = heads[(session_id, round_)] = _part((code, label, game, pace), _HEAD, numeric)
        trailer = trailers[session_id]
        before = f"{head.text},{middle.text},"
        after = f",{tail_text}{trailer.text}\n"
        for item in present:
            pieces.append((head.cells, middle.cells, item.cells, tail, trailer.cells))
            lines.append(before + item.text + after)
    table = TidyTable(
        columns=[*TIDY_COLUMNS, *factors_kept], lines=lines, pieces=pieces, numeric=numeric
    )
    return with_quality_control(study, table, qc_ratings)


def tidy_csv(study: Study, **options: bool) -> str:
    return tidy_table(study, **options).to_csv()
