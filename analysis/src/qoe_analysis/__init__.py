"""qoe_analysis: statistics for subjective QoE studies (no Django, no I/O in the math).

Public API::

    from qoe_analysis import load_ratings, validate_ratings, analyze, RatingsValidationError

Heavy modules (scikit-learn, SciPy) are imported on first use of ``analyze``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qoe_analysis.validation import RatingsValidationError, load_ratings, validate_ratings

__version__ = "0.1.0"
__all__ = ["RatingsValidationError", "__version__", "analyze", "load_ratings", "validate_ratings"]

if TYPE_CHECKING:
    from qoe_analysis.report import analyze


def __getattr__(name: str) -> Any:
    if name == "analyze":
        from qoe_analysis.report import analyze

        return analyze
    raise AttributeError(f"module 'qoe_analysis' has no attribute {name!r}")
