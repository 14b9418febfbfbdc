"""The compact JSON text of a value, by orjson: a compiled encoder, kept because the
standard library's spends most of a large analysis document's time in float ``repr``.

The text is ``orjson.dumps(value, option=OPTIONS)``: separators ``,`` and ``:``, strings in
UTF-8, floats in their shortest round-trip form (``1e-05`` is written ``0.00001``, ``1e-06``
as ``1e-6``), NumPy scalars and arrays as numbers and lists, keys that are not ``str`` as
orjson spells them (``OPT_NON_STR_KEYS`` leaves ``str`` keys as they are), a non-finite
float as ``null``.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["OPTIONS", "compact_json"]

#: orjson options of the compact text.
OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def compact_json(value: Any) -> bytes:
    """``value`` as compact JSON in UTF-8 (the module doc).

    A value orjson refuses (nested deeper than its 254 levels, as a deep decision tree
    can be; an integer beyond 64 bits) is encoded by ``json.dumps`` with the same
    separators, in UTF-8 (floats then in its spelling, ``1e-05``); a value neither
    encoder takes raises ``json.dumps``' ``TypeError`` or ``ValueError``."""
    try:
        return orjson.dumps(value, option=OPTIONS)
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
