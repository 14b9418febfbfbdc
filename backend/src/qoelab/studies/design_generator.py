"""Study designs from factors and levels: full-factorial grids and one factor at a time.

Pure functions (no Django): the API validates the request, calls :func:`generate_design`
and writes the result. A *factor* is one impairment factor of the registry
(:mod:`netem_profile.factors`, e.g. ``delay_ms`` or the Gilbert–Elliott part ``ge_p_pct``)
applied to one direction or to both, with its levels; the first level of every factor is
the baseline.

* **grid** (full factorial): every combination of levels, ``∏ len(levels)`` scenarios.
* **one_at_a_time**: the baseline plus each factor's other levels alone, the others at
  their first level: ``1 + Σ (len(levels) − 1)`` scenarios. This is the design the
  per-rater Spearman reliability check needs (a delay-only and a loss-only group, as in
  the dissertation's table 4.1).

Every scenario starts from the ``base`` profile (e.g. 10 ms jitter each way) and sets the
design's factors on top; the result is validated with the netem agent's own rules
(:func:`netem_profile.parse_profile`), so a design never contains a profile a station
would refuse. Profiles are built in the registry's flat factor space
(:func:`~netem_profile.flatten_direction` / :func:`~netem_profile.unflatten_direction`).

Codes are readable: one token per factor (``D`` delay, ``L`` loss, ``J`` jitter, ``GP``
Gilbert–Elliott p …) followed by the level's index, for every factor not at its first
level, e.g. ``D1L2`` = delay at its 2nd level × loss at its 3rd; ``B`` is the baseline.
A token is letters only and always followed by digits, so distinct tokens give distinct
codes. When one factor key appears in both directions as two factors, their tokens get a
direction prefix (``DD`` downstream delay, ``UD`` upstream delay). Codes longer than the
8 characters a scenario code may have fall back to ``S1, S2, …`` for the whole design
(the labels still say everything).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from netem_profile import (
    DIRECTIONS,
    FACTORS_BY_KEY,
    FIELDS,
    ProfileError,
    flatten_direction,
    parse_profile,
    unflatten_direction,
)

__all__ = [
    "CODE_PATTERN",
    "DESIGN_KINDS",
    "FACTOR_DIRECTIONS",
    "FACTOR_DIRECTION_NAMES",
    "FACTOR_KEYS",
    "FACTOR_TOKENS",
    "RATING_ALLOWANCE_SECONDS",
    "DesignError",
    "DesignFactor",
    "DesignScenario",
    "design_size",
    "generate_design",
    "session_minutes",
    "too_many_scenarios",
]

DesignKind = Literal["grid", "one_at_a_time"]
DESIGN_KINDS: tuple[str, ...] = ("grid", "one_at_a_time")
FACTOR_DIRECTIONS: Mapping[str, tuple[str, ...]] = {
    "downstream": ("downstream",),
    "upstream": ("upstream",),
    "both": ("downstream", "upstream"),
}
#: A scenario code (``Scenario.code``): 1–8 capitals or digits, a letter first.
CODE_PATTERN = r"^[A-Z][A-Z0-9]{0,7}$"
#: The factor keys a design may use (the registry's, in its order) and their directions.
FACTOR_KEYS: tuple[str, ...] = tuple(FACTORS_BY_KEY)
FACTOR_DIRECTION_NAMES: tuple[str, ...] = tuple(FACTOR_DIRECTIONS)
MAX_CODE_LENGTH = 8
MAX_LABEL_LENGTH = 120
BASELINE_CODE = "B"
#: Code token per factor key (letters only; none is "B", "S" or a direction prefix alone).
FACTOR_TOKENS: Mapping[str, str] = {
    "delay_ms": "D",
    "jitter_ms": "J",
    "jitter_distribution": "JD",
    "delay_correlation_pct": "DC",
    "loss_pct": "L",
    "loss_correlation_pct": "LC",
    "ge_p_pct": "GP",
    "ge_r_pct": "GR",
    "ge_loss_bad_pct": "GB",
    "ge_loss_good_pct": "GG",
    "rate_kbit": "R",
    "reorder_pct": "O",
    "reorder_correlation_pct": "OC",
    "duplicate_pct": "U",
    "corrupt_pct": "C",
}
assert set(FACTOR_TOKENS) == set(FACTORS_BY_KEY), "every registry factor needs a code token"
_DIRECTION_PREFIX = {"downstream": "D", "upstream": "U", "both": ""}
#: Seconds allowed per scenario for rating it and switching the impairment (the rating
#: screen, the agent's apply-and-verify); an estimate for planning, not a measurement.
RATING_ALLOWANCE_SECONDS = 20

Level = float | str


class DesignError(ValueError):
    """The design cannot be generated; the message names the factor/level and the rule."""


@dataclass(frozen=True)
class DesignFactor:
    """One factor of a design: a registry key, a direction (or both) and its levels."""

    key: str
    direction: str
    levels: tuple[Level, ...]


@dataclass(frozen=True)
class DesignScenario:
    """One generated scenario: code, label, the level index per factor and its profile."""

    code: str
    label: str
    is_baseline: bool
    level_indices: tuple[int, ...]
    upstream: dict[str, Any]
    downstream: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "label": self.label,
            "is_baseline": self.is_baseline,
            "upstream": self.upstream,
            "downstream": self.downstream,
        }


def design_size(kind: str, factors: Sequence[DesignFactor]) -> int:
    """How many scenarios a design makes (computed before generating any)."""
    if kind == "grid":
        return math.prod(len(f.levels) for f in factors)
    if kind == "one_at_a_time":
        return 1 + sum(len(f.levels) - 1 for f in factors)
    raise DesignError(f"kind: {kind!r} is not one of {list(DESIGN_KINDS)}")


def too_many_scenarios(count: int, maximum: int, *, setting: str = "QOELAB_MAX_SCENARIOS") -> str:
    """The refusal for a design over the maximum (the API's 400 ``detail``)."""
    return f"The design makes {count} scenarios; a study may have at most {maximum} ({setting})."


def session_minutes(
    scenarios: int, *, seconds_per_scenario: int, free_play_minutes: int, retest_round: bool
) -> float:
    """Estimated minutes of one session (one participant, one game).

    ``free_play_minutes + plays × (seconds_per_scenario + RATING_ALLOWANCE_SECONDS) / 60``
    with ``plays = n`` scenarios, plus ``n − 1`` with a retest round (it repeats every
    scenario but the baseline, see ``qoelab.runs.ordering``). The questionnaires are not
    included. Rounded to 0.1 min.
    """
    plays = scenarios + (scenarios - 1 if retest_round and scenarios > 1 else 0)
    total = free_play_minutes + plays * (seconds_per_scenario + RATING_ALLOWANCE_SECONDS) / 60
    return round(total, 1)


# --- validation ----------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_level(index: int, position: int, factor: DesignFactor, value: Any) -> Level:
    where = f"factors[{index}].levels[{position}]"
    spec = FACTORS_BY_KEY[factor.key]
    if spec.kind == "nominal":
        if value not in spec.choices:
            raise DesignError(f"{where}: {value!r} is not one of {list(spec.choices)!r}")
        return str(value)
    try:
        finite = _is_number(value) and math.isfinite(value)
    except OverflowError:  # an integer beyond any float
        finite = False
    if not finite:
        raise DesignError(f"{where}: {str(value)[:40]} is not a number")
    unit = f" {spec.unit}" if spec.unit else ""
    if spec.minimum is not None and value < spec.minimum:
        raise DesignError(
            f"{where}: {value!r} is less than the minimum of {_number(spec.minimum)}{unit} "
            f"({factor.key})"
        )
    if spec.maximum is not None and value > spec.maximum:
        raise DesignError(
            f"{where}: {value!r} is greater than the maximum of {_number(spec.maximum)}{unit} "
            f"({factor.key})"
        )
    field = FIELDS.get(factor.key)
    if field is not None and field.type == "integer" and not float(value).is_integer():
        raise DesignError(f"{where}: {value!r} is not a whole number ({factor.key})")
    return float(value)


def _check_factors(factors: Sequence[DesignFactor]) -> list[DesignFactor]:
    if not factors:
        raise DesignError("factors: a design needs at least one factor")
    checked: list[DesignFactor] = []
    taken: dict[tuple[str, str], int] = {}
    for index, factor in enumerate(factors):
        if factor.key not in FACTORS_BY_KEY:
            raise DesignError(
                f"factors[{index}].key: {factor.key!r} is not an impairment factor "
                f"({', '.join(FACTORS_BY_KEY)})"
            )
        if factor.direction not in FACTOR_DIRECTIONS:
            raise DesignError(
                f"factors[{index}].direction: {factor.direction!r} is not one of "
                f"{list(FACTOR_DIRECTIONS)}"
            )
        if not factor.levels:
            raise DesignError(f"factors[{index}].levels: a factor needs at least one level")
        levels = tuple(
            _check_level(index, position, factor, value)
            for position, value in enumerate(factor.levels)
        )
        for position, value in enumerate(levels):
            if value in levels[:position]:
                raise DesignError(
                    f"factors[{index}].levels[{position}]: {_number(value)} appears twice "
                    "(each level makes its own scenarios)"
                )
        for direction in FACTOR_DIRECTIONS[factor.direction]:
            earlier = taken.get((factor.key, direction))
            if earlier is not None:
                raise DesignError(
                    f"factors[{index}]: {factor.key} {direction} is already set by "
                    f"factors[{earlier}]"
                )
            taken[(factor.key, direction)] = index
        checked.append(DesignFactor(factor.key, factor.direction, levels))
    return checked


def _check_base(base: Mapping[str, Any] | None) -> dict[str, dict[str, float | str]]:
    """The base profile as flat factor values per direction (validated by the agent's rules)."""
    doc = dict(base or {})
    try:
        profile = parse_profile(doc)
    except ProfileError as exc:
        raise DesignError(
            "; ".join(f"base.{e['path']}: {e['message']}" for e in exc.errors)
        ) from None
    return {name: flatten_direction(profile.direction(name).to_dict()) for name in DIRECTIONS}


# --- codes and labels ------------------------------------------------------------------------


def _tokens(factors: Sequence[DesignFactor]) -> list[str]:
    keys = [f.key for f in factors]
    tokens = [
        (_DIRECTION_PREFIX[f.direction] if keys.count(f.key) > 1 else "") + FACTOR_TOKENS[f.key]
        for f in factors
    ]
    assert len(set(tokens)) == len(tokens), tokens  # guaranteed by _check_factors
    return tokens


def _codes(factors: Sequence[DesignFactor], combos: Sequence[tuple[int, ...]]) -> list[str]:
    tokens = _tokens(factors)
    codes = [
        "".join(f"{token}{level}" for token, level in zip(tokens, combo, strict=True) if level)
        or BASELINE_CODE
        for combo in combos
    ]
    if any(len(code) > MAX_CODE_LENGTH for code in codes):
        numbers = itertools.count(1)
        codes = [code if code == BASELINE_CODE else f"S{next(numbers)}" for code in codes]
    return codes


def _number(value: Level) -> str:
    if isinstance(value, str):
        return value
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _words(factor: DesignFactor, value: Level) -> str:
    """``downstream delay 100 ms``, ``loss 1 % each way``, ``upstream rate limit none``."""
    spec = FACTORS_BY_KEY[factor.key]
    name = spec.label.replace(": ", " ").lower()
    if factor.key == "rate_kbit" and value == 0:
        amount = "none"
    else:
        amount = _number(value) + (f" {spec.unit}" if spec.unit else "")
    if factor.direction == "both":
        return f"{name} {amount} each way"
    return f"{factor.direction} {name} {amount}"


def _label(text: str) -> str:
    return text if len(text) <= MAX_LABEL_LENGTH else text[: MAX_LABEL_LENGTH - 1] + "…"


# --- generation ------------------------------------------------------------------------------


def _combinations(kind: str, factors: Sequence[DesignFactor]) -> list[tuple[int, ...]]:
    if kind == "grid":
        return list(itertools.product(*(range(len(f.levels)) for f in factors)))
    combos = [tuple(0 for _ in factors)]
    for index, factor in enumerate(factors):
        for level in range(1, len(factor.levels)):
            combos.append(tuple(level if i == index else 0 for i in range(len(factors))))
    return combos


def _profile(
    base: Mapping[str, Mapping[str, float | str]],
    factors: Sequence[DesignFactor],
    combo: tuple[int, ...],
) -> dict[str, dict[str, Any]]:
    flat = {name: dict(base[name]) for name in DIRECTIONS}
    for factor, level in zip(factors, combo, strict=True):
        for direction in FACTOR_DIRECTIONS[factor.direction]:
            flat[direction][factor.key] = factor.levels[level]
    return {name: unflatten_direction(flat[name]) for name in DIRECTIONS}


def _full(doc: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    full = parse_profile(doc).to_dict()
    for direction in full.values():
        direction.pop("queue_limit_packets", None)  # a station setting, not a scenario's
    return full


def generate_design(
    kind: str,
    factors: Sequence[DesignFactor],
    base: Mapping[str, Any] | None = None,
    *,
    max_scenarios: int,
) -> list[DesignScenario]:
    """The scenarios of a design, baseline (``B``) first; raises :class:`DesignError`.

    ``base`` is a profile document (``{"upstream": {...}, "downstream": {...}}``, fields
    as the agent takes them) applied to every scenario below the design's factors. More
    than ``max_scenarios`` scenarios are refused before any is generated.
    """
    if kind not in DESIGN_KINDS:
        raise DesignError(f"kind: {kind!r} is not one of {list(DESIGN_KINDS)}")
    factors = _check_factors(factors)
    count = design_size(kind, factors)
    if count > max_scenarios:
        raise DesignError(too_many_scenarios(count, max_scenarios))
    flat_base = _check_base(base)
    combos = _combinations(kind, factors)
    codes = _codes(factors, combos)
    scenarios: list[DesignScenario] = []
    seen: dict[str, str] = {}
    for code, combo in zip(codes, combos, strict=True):
        try:
            profile = _full(_profile(flat_base, factors, combo))
        except ProfileError as exc:
            raise DesignError(
                "; ".join(f"scenario {code}: {e['path']}: {e['message']}" for e in exc.errors)
            ) from None
        fingerprint = repr(sorted((d, sorted(p.items())) for d, p in profile.items()))
        if fingerprint in seen:
            raise DesignError(
                f"scenarios {seen[fingerprint]} and {code} would have the same impairment: "
                "a level has no effect here (e.g. a Gilbert–Elliott part while ge_p_pct is 0)"
            )
        seen[fingerprint] = code
        is_baseline = not any(combo)
        if kind == "grid" or is_baseline:
            words = ", ".join(
                _words(f, f.levels[level]) for f, level in zip(factors, combo, strict=True)
            )
        else:
            index = next(i for i, level in enumerate(combo) if level)
            varied = factors[index]
            words = f"{_words(varied, varied.levels[combo[index]])} (others at baseline)"
        scenarios.append(
            DesignScenario(
                code=code,
                label=_label(f"Baseline: {words}" if is_baseline else words),
                is_baseline=is_baseline,
                level_indices=combo,
                upstream=profile["upstream"],
                downstream=profile["downstream"],
            )
        )
    return scenarios
