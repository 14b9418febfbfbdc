"""Integer settings from the environment (QOELAB_MAX_SCENARIOS and friends)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from qoelab.config import env_int


def test_env_int_reads_checks_and_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QOELAB_MAX_SCENARIOS", raising=False)
    assert env_int("QOELAB_MAX_SCENARIOS", 100, minimum=1, maximum=10_000) == 100
    monkeypatch.setenv("QOELAB_MAX_SCENARIOS", " 250 ")
    assert env_int("QOELAB_MAX_SCENARIOS", 100, minimum=1, maximum=10_000) == 250
    monkeypatch.setenv("QOELAB_MAX_SCENARIOS", "")
    assert env_int("QOELAB_MAX_SCENARIOS", 100, minimum=1, maximum=10_000) == 100
    monkeypatch.setenv("QOELAB_MAX_SCENARIOS", "many")
    with pytest.raises(ImproperlyConfigured, match="QOELAB_MAX_SCENARIOS='many' is not a whole"):
        env_int("QOELAB_MAX_SCENARIOS", 100, minimum=1, maximum=10_000)
    monkeypatch.setenv("QOELAB_MAX_SCENARIOS", "0")
    with pytest.raises(ImproperlyConfigured, match=r"QOELAB_MAX_SCENARIOS=0 is outside 1..10000"):
        env_int("QOELAB_MAX_SCENARIOS", 100, minimum=1, maximum=10_000)


def test_the_default_maximum_is_100() -> None:
    from django.conf import settings

    assert settings.QOELAB_MAX_SCENARIOS == 100
