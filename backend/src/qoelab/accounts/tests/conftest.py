"""Sign-in tests: throttle counters start empty, and Bob is a researcher."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache


@pytest.fixture(autouse=True)
def fresh_throttles() -> Iterator[None]:
    """Throttle counters live in the cache: every test starts with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def user(db: None) -> Any:
    """A researcher without staff status (as most researchers are)."""
    return get_user_model().objects.create_user("bob", password="bob-password-1")
