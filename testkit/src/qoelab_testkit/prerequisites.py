"""Prerequisites of a test: skipped on a developer's machine, required in CI."""

from __future__ import annotations

import os

import pytest


def strict() -> bool:
    """CI sets QOELAB_STRICT=1: then every suite must run for real."""
    return os.environ.get("QOELAB_STRICT") == "1"


def require(condition: bool, reason: str) -> None:
    """Skip — or, with QOELAB_STRICT=1 as in CI, fail — when a prerequisite is missing."""
    if condition:
        return
    if strict():
        pytest.fail(f"required in strict mode (QOELAB_STRICT=1): {reason}")
    pytest.skip(reason)
