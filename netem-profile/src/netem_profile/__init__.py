"""The impairment profile shared by the QoE Lab web app and the netem agent.

One registry of per-direction fields (:mod:`netem_profile.fields`) drives the immutable
profile objects, the validator and the JSON Schema. Standard library only, and nothing
of the kernel side, so the web app can validate scenarios without the agent.
"""

from netem_profile.factors import (
    DIRECTION_PREFIXES,
    FACTORS,
    FACTORS_BY_KEY,
    Factor,
    catalog,
    factor_columns,
    flatten_direction,
    parse_column,
    tidy_column,
    unflatten_direction,
)
from netem_profile.fields import DIRECTION_FIELDS, FIELDS, JITTER_DISTRIBUTIONS, Field
from netem_profile.model import (
    DIRECTION_LABELS,
    DIRECTIONS,
    DirectionProfile,
    GilbertElliott,
    Profile,
)
from netem_profile.schema import json_schema
from netem_profile.validate import ProfileError, parse_direction, parse_profile

__all__ = [
    "DIRECTIONS",
    "DIRECTION_FIELDS",
    "DIRECTION_LABELS",
    "DIRECTION_PREFIXES",
    "FACTORS",
    "FACTORS_BY_KEY",
    "FIELDS",
    "JITTER_DISTRIBUTIONS",
    "DirectionProfile",
    "Factor",
    "Field",
    "GilbertElliott",
    "Profile",
    "ProfileError",
    "catalog",
    "factor_columns",
    "flatten_direction",
    "json_schema",
    "parse_column",
    "parse_direction",
    "parse_profile",
    "tidy_column",
    "unflatten_direction",
]
