"""ARFF text for Weka (factors + the binary target), used for the Weka reference runs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["to_arff"]


def to_arff(factors: pd.DataFrame, y: np.ndarray[Any, Any], relation: str = "qoe") -> str:
    """ARFF document: numeric factors as ``numeric``, others nominal (sorted values), and
    the class attribute ``acceptable {no,yes}`` last."""
    lines = [f"@relation {relation}", ""]
    columns = []
    for column in factors.columns:
        series = factors[column]
        if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
            series.dtype
        ):
            lines.append(f"@attribute {column} numeric")
            columns.append(series.to_numpy(dtype=np.float64))
        else:
            values = series.astype(str).to_numpy(dtype=object)
            lines.append(f"@attribute {column} {{{','.join(sorted(set(values.tolist())))}}}")
            columns.append(values)
    lines += ["@attribute acceptable {no,yes}", "", "@data"]
    target = np.where(np.asarray(y) == 1, "yes", "no")
    body = pd.DataFrame({i: c for i, c in enumerate(columns)})
    body["acceptable"] = target
    return "\n".join(lines) + "\n" + body.to_csv(header=False, index=False, float_format="%.17g")
