"""The typed ``marginals`` section: MOS with its 95 % CI per factor level or bin, per rating
item, per game and over all games (producer: :mod:`qoe_analysis.stats.marginals`, rule:
docs/methods.md §2c).

``factors`` says how each factor's points were made (tested levels, quantile bins or the
most-rated levels); ``series`` holds one list of points per (item, factor, game), the
points in the factor's order, the same points in every game (n = 0 where a game has no
rating at one). ``typing_extensions``' ``TypedDict``: pydantic exports the JSON Schema from
it on Python 3.11 as well.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

from qoe_analysis.schema.stats_types import CiStatus

#: ``levels``: one point per tested value; ``quantiles``: equal-count bins of a numeric
#: factor; ``top_levels``: the most-rated values of a nominal factor and one "other" point.
MarginalBinning = Literal["levels", "quantiles", "top_levels"]
#: ``network``: an impairment factor of the registry (``both_X`` for a merged one);
#: ``rater``: a per-rater or per-session column (a questionnaire answer, a context such as
#: the testbed).
MarginalSource = Literal["network", "rater"]


class MarginalFactor(TypedDict):
    """A factor with a marginal view: where it comes from and how its points were made.
    ``n_levels`` counts its distinct values among the ratings (missing ones not counted)."""

    factor: str
    label: str
    source: MarginalSource
    kind: Literal["numeric", "nominal"]
    unit: str
    binning: MarginalBinning
    n_levels: int


class MarginalPoint(TypedDict):
    """The ratings whose factor value falls in one point, pooled: n ratings, n distinct
    raters, MOS, SOS (ddof = 1) and MOS ± t(0.975, n − 1)·SOS/√n clipped to the scale
    (``ci95_status``, as in ``conditions``). ``level`` is the tested value (None for a bin
    or the "other" point), ``low``/``high`` the numeric range (a bin (low, high], the first
    [low, high]; a tested number is its own range; None for text). MOS and SOS are None
    for n = 0, SOS and the CI for n < 2."""

    label: str
    level: float | str | None
    low: float | None
    high: float | None
    n: int
    n_raters: int
    mos: float | None
    sos: float | None
    ci95_low: float | None
    ci95_high: float | None
    ci95_status: CiStatus


class MarginalSeries(TypedDict):
    """The points of one factor for one item and game ("all": every game pooled);
    ``n_missing``: ratings of that item and game without a value of the factor (a
    questionnaire gap), which are in no point."""

    item: str
    factor: str
    game: str
    n_missing: int
    points: list[MarginalPoint]


class Marginals(TypedDict):
    """MOS by factor level or bin, per item, factor and game. ``raters``: whose ratings
    ("reliable" under ``reliable_only``, as ``conditions``); ``notes``: ``{factor:
    reason}`` for a column given no view."""

    method: str
    binning: str
    max_levels: int
    n_bins: int
    raters: Literal["all", "reliable"]
    factors: list[MarginalFactor]
    series: list[MarginalSeries]
    notes: dict[str, str]
