"""The tidy CSV's columns: one source, cheap to import (the backend loads it at start-up)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from qoe_analysis.tidy import columns as tidy_columns
from qoe_analysis.tidy import design


@pytest.mark.parametrize("module", ["tidy.columns", "scales"])
def test_importing_the_columns_loads_no_numeric_stack(module: str) -> None:
    probe = (
        f"import sys, qoe_analysis.{module}; "
        "print(sorted(m for m in ('pandas', 'numpy', 'scipy', 'sklearn') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_package_still_exports_its_api_lazily() -> None:
    import qoe_analysis

    assert qoe_analysis.load_ratings.__module__ == "qoe_analysis.io.ratings_csv"
    assert qoe_analysis.validate_ratings.__module__ == "qoe_analysis.tidy.validation"
    assert issubclass(qoe_analysis.RatingsValidationError, ValueError)
    assert qoe_analysis.analyze.__module__ == "qoe_analysis.report"


def test_design_re_exports_the_same_columns() -> None:
    assert design.REQUIRED_COLUMNS is tidy_columns.REQUIRED_COLUMNS
    assert tidy_columns.REQUIRED_COLUMNS[-1] == tidy_columns.RATING
    # identity + rating; the impairment factors are any subset of the registry's columns
    assert len(set(tidy_columns.REQUIRED_COLUMNS)) == len(tidy_columns.REQUIRED_COLUMNS) == 6
    assert not any(tidy_columns.is_factor_column(c) for c in tidy_columns.REQUIRED_COLUMNS)


def test_the_export_columns_hold_every_registry_factor_in_order() -> None:
    factors = tidy_columns.FACTOR_COLUMNS
    assert len(factors) == 30 and len(set(factors)) == 30
    assert factors[:2] == ("ds_delay_ms", "us_delay_ms")
    assert {"ds_jitter_ms", "us_jitter_distribution", "ds_ge_p_pct", "us_rate_kbit"} <= set(factors)
    assert (
        *tidy_columns.IDENTITY_COLUMNS,
        *factors,
        "item",
        "rating",
        "training",
        "response_ms",
        "since_end_ms",
        "agent_backend",
        "agent_version",
    ) == tidy_columns.TIDY_COLUMNS
    assert not set(tidy_columns.ITEM_COLUMNS) & set(tidy_columns.REQUIRED_COLUMNS)
    # the table-4.1 columns keep the registry's relative order (delay before loss)
    order = [factors.index(c) for c in tidy_columns.NETWORK_FACTORS]
    assert order == sorted(order)
