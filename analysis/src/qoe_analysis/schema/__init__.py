"""The typed analysis document (the output contract of :func:`qoe_analysis.report.analyze`)
and its JSON Schema, the source of the frontend's generated types.

The types are plain ``TypedDict``s (no runtime cost); :mod:`qoe_analysis.schema.export`
turns them into a JSON Schema with pydantic, which only that module imports:
``python -m qoe_analysis.schema`` prints it.
"""

from qoe_analysis.schema.document import (
    AnalysisDocument,
    FactorGrid,
    FactorPoint,
    FactorSeries,
    GridCell,
    HoldMode,
    Level,
    Meta,
    MosByFactor,
    Notes,
    PooledMos,
    Reliability,
    SosHypothesis,
    SubjectModel,
)

__all__ = [
    "AnalysisDocument",
    "FactorGrid",
    "FactorPoint",
    "FactorSeries",
    "GridCell",
    "HoldMode",
    "Level",
    "Meta",
    "MosByFactor",
    "Notes",
    "PooledMos",
    "Reliability",
    "SosHypothesis",
    "SubjectModel",
]
