"""Fixtures of the Level A system tests: root, Open vSwitch, the Faucet/os-ken tool venv."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from qoelab_testkit.ovs import require_ovs

sys.path.insert(0, str(Path(__file__).parent))  # lab.py, switching.py, traffic.py

from lab import Lab


def make_lab(controller: str | None) -> Iterator[Lab]:
    require_ovs("the steering system tests need root (network namespaces)")
    lab = Lab(controller)
    try:
        lab.start()
        yield lab
    finally:
        lab.close()


@pytest.fixture
def ovs_lab() -> Iterator[Lab]:
    """The topology with a controller-less bridge (fail-mode secure: no rule, no forwarding)."""
    yield from make_lab(None)


@pytest.fixture
def controlled_lab() -> Iterator[Lab]:
    """The topology whose bridge connects to a controller on the switch ns's 127.0.0.1:6653."""
    yield from make_lab("tcp:127.0.0.1:6653")


@pytest.fixture(scope="session")
def tool_venv() -> Path:
    """var/tools/faucet-venv (Faucet 1.10 and os-ken 3.1), built by qoelab_testkit.faucet."""
    from qoelab_testkit.faucet import faucet_venv

    return faucet_venv()
