"""Ratings in: the tidy CSV (as exported) into a study, all or nothing.

Every row is checked before anything is written; the first problem rejects the whole
file with its line number (the header is line 1), the column and the reason. Rows must
name a game and a scenario of the study. The impairment columns are any subset (at least
one) of the factor registry's (``ds_delay_ms``, ``us_ge_p_pct`` …, see
:func:`netem_profile.factor_columns`; the dissertation's four delay/loss columns are such a
subset); each value must lie within the agent's limits for that field and equal the
scenario's (a row whose impairment disagrees would mislabel a rating). A factor column
that is absent means "as the scenario sets it"; an empty cell is a missing value, refused
as the analysis refuses it (one contract, :mod:`qoelab.exports.import_table`). The
rating's stored profile is the scenario's factor values overridden by the row's, per direction, as
:func:`netem_profile.unflatten_direction` builds it. Each ``session_id`` becomes one
completed, imported session (one rater and one game per session); participants are
matched by ``rater_id`` (created when new).

Long format (issue 15): each row is one value of one rating item (``item``; a file without
that column rates the study's only item, or else its item ``overall``). The item must be
one of the study's rating items and the value must lie on its scale, so a 0..6 dataset
imports once the study declares a discrete 0..6 item. The rows of one rating
(same session, scenario and ``training`` flag) become one stored rating with a value per
item; ``training`` (0/1) marks training ratings (stored first in the session's order,
round 0), ``response_ms`` and ``since_end_ms`` are optional whole milliseconds.
``agent_backend``/``agent_version`` (optional, as exported) become the rating's
provenance; without them (or empty) it is ``{"backend": "import"}``.

Text cells are read back un-escaped (:func:`qoe_analysis.io.csv_cells.unescape_text_cell`):
the export writes a game ``=x`` as ``'=x`` against spreadsheet formulas (also ``=x``
behind U+200B, or ``＝x``: the one prefix rule,
:func:`qoe_analysis.io.csv_cells.formula_start`), and the import gives back ``=x``.

Two phases (run by the import job, :mod:`qoelab.exports.import_run`): the file is read
and checked (the tidy-format contract of the analysis, :mod:`qoelab.exports.import_table`;
then the rows against the study, :func:`qoelab.exports.import_rows.parse_ratings`, which
keeps only the compact ratings, not the rows), then written in one transaction with bulk
inserts in chunks (:func:`qoelab.exports.import_write.write_ratings`). The study's design
is locked while writing and must be the one the file was checked against.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.db import transaction

from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.import_rows import Progress, parse_ratings
from qoelab.exports.import_write import ImportResult, write_ratings
from qoelab.studies.data_version import bump_data_version
from qoelab.studies.models import Study

__all__ = ["ImportResult", "design_fingerprint", "import_ratings"]


def design_fingerprint(study: Study) -> tuple[Any, ...]:
    """What the file's rows were checked against: the version, items, questionnaire, the
    games and the scenarios with their impairments."""
    return (
        study.version,
        repr(study.rating_items),
        repr(study.questionnaire),
        tuple(study.games.order_by("pk").values_list("pk", "name", "pace")),
        tuple((s.pk, s.code, repr(s.profile())) for s in study.scenarios.order_by("pk")),
    )


def import_ratings(
    study: Study,
    lines: Iterable[str],
    digest: str,
    progress: Progress | None = None,
    *,
    before_write: Callable[[], None] | None = None,
) -> ImportResult:
    """Check every row, then write them all in one transaction (or raise ImportRejected).

    ``digest`` names the file in the imported sessions and ratings; ``progress`` hears the
    rows checked so far and ``before_write`` when writing starts (outside the transaction:
    a job's progress stays visible to others)."""
    parsed = parse_ratings(study, lines, progress, design_fingerprint(study))
    if before_write is not None:
        before_write()
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        if design_fingerprint(study) != parsed.design:
            raise ImportRejected(
                "the study's design changed while the file was being checked; submit it again"
            )
        result = write_ratings(study, parsed.sessions, digest)
        bump_data_version(study)
        return result
