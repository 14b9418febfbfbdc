"""The tidy ratings CSV's columns: the contract between QoE Lab's export and the analysis.

One row per rating per item (long format): who rated (``rater_id``, ``session_id``), what
(``game``, ``game_pace``, ``scenario``), under which impairment, which ``item`` (a key of
the study's rating items, :mod:`qoe_analysis.scales`) and the ``rating``, then whether the
rating was ``training`` (0/1, excluded from every analysis), ``response_ms`` (rating screen
shown → submitted, client-measured) and ``since_end_ms`` (scenario end → rating stored).
The impairment columns come from the factor registry (:mod:`netem_profile.factors`): one column
``<ds|us>_<factor>`` per factor and direction with the unit in the name (``ds_delay_ms``,
``us_ge_p_pct``); ``ds_`` is downstream (server→client), ``us_`` upstream (client→server).
The export writes every factor column (:data:`TIDY_COLUMNS`); a table to analyse needs the
identity columns, the rating and at least one factor column (:data:`REQUIRED_COLUMNS`);
without an ``item`` column the table is one item "overall" on ACR-5, without ``training``
nothing is training, and the response-time columns are optional (empty = not measured).
``agent_backend`` and ``agent_version`` (optional, :data:`PROVENANCE_COLUMNS`) say which
netem agent backend applied the impairment (``netlink``, ``dry-run`` — nothing applied to a
kernel —, ``import``…; empty = unknown): provenance, never a factor of the analysis.
The quality-control columns (optional, :data:`QC_COLUMNS`, ITU-T P.808): ``kind``
("scenario" or empty; ``trap``, an instructed-response answer; ``hidden_reference``, a
scenario's unannounced repeat), ``qc_expected`` (a trap's instructed value), and the export's
per-rater verdict ``qc_failed`` (true/false, empty = no QC) and ``qc_reasons``; QC rows never
enter any statistic (:mod:`qoe_analysis.tidy.quality_control_rows`), QC columns are no factors.
Any other column is a per-rater or per-session factor.

Standard library only and imported by the backend at start-up: importing this module must
not pull in pandas or SciPy (a test checks it).
"""

from __future__ import annotations

from typing import Final

from netem_profile.factors import factor_columns, parse_column

__all__ = [
    "AGENT_BACKEND",
    "AGENT_VERSION",
    "DRY_RUN",
    "DS_DELAY",
    "DS_LOSS",
    "FACTOR_COLUMNS",
    "GAME",
    "IDENTITY_COLUMNS",
    "ITEM",
    "ITEM_COLUMNS",
    "KIND",
    "NETWORK_FACTORS",
    "PACE",
    "PROVENANCE_COLUMNS",
    "QC_COLUMNS",
    "QC_EXPECTED",
    "QC_FAILED",
    "QC_REASONS",
    "RATER",
    "RATING",
    "REQUIRED_COLUMNS",
    "RESPONSE_MS",
    "SCENARIO",
    "SESSION",
    "SINCE_END_MS",
    "TIDY_COLUMNS",
    "TRAINING",
    "US_DELAY",
    "US_LOSS",
    "is_factor_column",
]

RATER: Final = "rater_id"
SESSION: Final = "session_id"
GAME: Final = "game"
PACE: Final = "game_pace"
SCENARIO: Final = "scenario"
DS_DELAY: Final = "ds_delay_ms"
US_DELAY: Final = "us_delay_ms"
DS_LOSS: Final = "ds_loss_pct"
US_LOSS: Final = "us_loss_pct"
RATING: Final = "rating"
ITEM: Final = "item"
TRAINING: Final = "training"
RESPONSE_MS: Final = "response_ms"
SINCE_END_MS: Final = "since_end_ms"
AGENT_BACKEND: Final = "agent_backend"
AGENT_VERSION: Final = "agent_version"
KIND: Final = "kind"
QC_EXPECTED: Final = "qc_expected"
QC_FAILED: Final = "qc_failed"
QC_REASONS: Final = "qc_reasons"
#: The quality-control columns (optional; never factors): row kind, a trap's instructed
#: value, the rater's verdict and its reasons.
QC_COLUMNS: Final[tuple[str, ...]] = (KIND, QC_EXPECTED, QC_FAILED, QC_REASONS)
#: The agent backend that records the operations and applies nothing to a kernel.
DRY_RUN: Final = "dry-run"

#: The four factors of the reference study (dissertation, table 4.1).
NETWORK_FACTORS: Final[tuple[str, ...]] = (DS_DELAY, US_DELAY, DS_LOSS, US_LOSS)
IDENTITY_COLUMNS: Final[tuple[str, ...]] = (RATER, SESSION, GAME, PACE, SCENARIO)
#: Every impairment factor column, per factor downstream then upstream.
FACTOR_COLUMNS: Final[tuple[str, ...]] = factor_columns()
#: What the export writes, in this order (then per-rater/per-session columns).
TIDY_COLUMNS: Final[tuple[str, ...]] = (
    *IDENTITY_COLUMNS,
    *FACTOR_COLUMNS,
    ITEM,
    RATING,
    TRAINING,
    RESPONSE_MS,
    SINCE_END_MS,
    AGENT_BACKEND,
    AGENT_VERSION,
)
#: Which agent applied the rating's impairment (optional text, empty = unknown).
PROVENANCE_COLUMNS: Final[tuple[str, ...]] = (AGENT_BACKEND, AGENT_VERSION)
#: The optional rating-item columns (long format), in export order around ``rating``.
ITEM_COLUMNS: Final[tuple[str, ...]] = (ITEM, TRAINING, RESPONSE_MS, SINCE_END_MS)
#: What a table to analyse or import must have, besides at least one factor column.
REQUIRED_COLUMNS: Final[tuple[str, ...]] = (*IDENTITY_COLUMNS, RATING)


def is_factor_column(column: str) -> bool:
    """True for an impairment factor column of the registry (``ds_jitter_ms``…)."""
    return parse_column(column) is not None
