"""The CLI's allocator settings: applied on glibc, never over the user's own."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest
from qoe_analysis.malloc_tuning import keep_freed_memory

PROBE = "from qoe_analysis.malloc_tuning import keep_freed_memory as k; print(k())"


def _probe(env: dict[str, str] | None = None) -> str:
    """keep_freed_memory() in a fresh process (the test process keeps its allocator)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


def test_set_on_glibc_only() -> None:
    on_glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert _probe() == str(on_glibc)


@pytest.mark.parametrize(
    "name", ["MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"]
)
def test_the_users_settings_win(name: str) -> None:
    assert keep_freed_memory({name: "131072"}) is False


def test_the_users_glibc_malloc_tunables_win() -> None:
    assert keep_freed_memory({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=65536"}) is False
    tunables = "glibc.rtld.optional_static_tls=4096:glibc.malloc.trim_threshold=1"
    assert keep_freed_memory({"GLIBC_TUNABLES": tunables}) is False
