"""qoe_analysis: statistics for subjective QoE studies (no Django, no I/O in the math).

Public API::

    from qoe_analysis import load_ratings, validate_ratings, analyze, RatingsValidationError

Every name is imported on first use: pandas, scikit-learn and SciPy load only then, so a
stdlib-only submodule (:mod:`qoe_analysis.tidy.columns`) stays cheap to import.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "1.0.0"
__all__ = ["RatingsValidationError", "__version__", "analyze", "load_ratings", "validate_ratings"]

if TYPE_CHECKING:
    from qoe_analysis.io.ratings_csv import load_ratings
    from qoe_analysis.report import analyze
    from qoe_analysis.tidy.validation import RatingsValidationError, validate_ratings

_LAZY = {
    "analyze": "qoe_analysis.report",
    "load_ratings": "qoe_analysis.io.ratings_csv",
    "validate_ratings": "qoe_analysis.tidy.validation",
    "RatingsValidationError": "qoe_analysis.tidy.errors",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'qoe_analysis' has no attribute {name!r}")
