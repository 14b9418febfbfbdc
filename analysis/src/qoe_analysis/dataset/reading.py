"""The thin reading layer of the dataset loader: a descriptor file (JSON, or YAML when its
name ends in .yaml/.yml) and its data files (CSV, UTF-8 with or without a byte-order mark,
the resource's ``dialect.delimiter``, default ','), read as text cells exactly as written:
the loader reads each column by its field's type and missing values
(:mod:`qoe_analysis.dataset.cells`). Data file paths are relative to the descriptor's
folder. Every other step is :func:`qoe_analysis.dataset.loader.load_dataset`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

import pandas as pd

from qoe_analysis.dataset.descriptor import ResourceSpec
from qoe_analysis.dataset.loader import LoadedDataset, Reader, load_dataset
from qoe_analysis.dataset.problems import DatasetError, Problem

__all__ = ["csv_reader", "load_dataset_file", "read_csv_cells", "read_descriptor"]


def _refused(path: Path, rule: str) -> DatasetError:
    return DatasetError([Problem(path.name, None, None, None, rule)])


def read_descriptor(path: Path) -> Any:
    """The parsed descriptor file; a file that is not JSON (YAML) is one problem."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _refused(path, f"the descriptor is not UTF-8 text ({exc.reason})") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f", line {mark.line + 1}" if mark is not None else ""
            raise _refused(path, f"the descriptor is not YAML{where}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _refused(path, f"the descriptor is not JSON ({exc.msg}, line {exc.lineno})") from None


def read_csv_cells(
    source: Path | IO[bytes], delimiter: str = ",", nrows: int | None = None
) -> pd.DataFrame:
    """The CSV file (a path or a binary stream) as text cells: no type inference, no
    missing-value guess, blank lines kept as empty rows (their line numbers stay right; the
    loader skips them); ``nrows`` reads only that many rows (0: the header alone). A file
    that cannot be read raises ValueError saying why."""
    try:
        return pd.read_csv(
            source,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            skip_blank_lines=False,
            sep=delimiter,
            encoding="utf-8-sig",
            nrows=nrows,
        )
    except pd.errors.EmptyDataError:
        raise ValueError("the file is empty") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"malformed CSV ({str(exc).strip().splitlines()[-1]})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"the file is not UTF-8 text ({exc.reason})") from None


def csv_reader(folder: Path) -> Reader:
    """A reader of each resource's CSV file, its path relative to ``folder``."""

    def read(resource: ResourceSpec) -> pd.DataFrame:
        return read_csv_cells(folder / resource.path, resource.delimiter)

    return read


def load_dataset_file(path: Path, *, strict: bool = False) -> LoadedDataset:
    """The dataset of the descriptor file at ``path`` (its data files beside it)."""
    raw = read_descriptor(path)
    return load_dataset(raw, csv_reader(path.parent), strict=strict, source=path.name)
