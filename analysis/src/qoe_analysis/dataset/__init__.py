"""Any QoE dataset in: a dataset descriptor (Frictionless Data Package-like, with QoE Lab's
roles) and its data files to the tidy table the analysis takes (issue 32;
docs/importing-data.md).

Public API::

    from qoe_analysis.dataset import load_dataset, load_dataset_file, describe_files
    from qoe_analysis.dataset import DatasetError, Problem

Every name is imported on first use (pandas loads only then): the CLI imports
:mod:`qoe_analysis.dataset.problems` at start-up.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = [
    "DatasetError",
    "LoadedDataset",
    "Problem",
    "describe_files",
    "load_dataset",
    "load_dataset_file",
]

if TYPE_CHECKING:
    from qoe_analysis.dataset.describe import describe_files
    from qoe_analysis.dataset.loader import LoadedDataset, load_dataset
    from qoe_analysis.dataset.problems import DatasetError, Problem
    from qoe_analysis.dataset.reading import load_dataset_file

_LAZY = {
    "DatasetError": "qoe_analysis.dataset.problems",
    "Problem": "qoe_analysis.dataset.problems",
    "LoadedDataset": "qoe_analysis.dataset.loader",
    "load_dataset": "qoe_analysis.dataset.loader",
    "load_dataset_file": "qoe_analysis.dataset.reading",
    "describe_files": "qoe_analysis.dataset.describe",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'qoe_analysis.dataset' has no attribute {name!r}")
