"""Shared fixtures of the unit tests: the example policy and a config writer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from qoe_steer.policy_source import LoadedPolicy, load_policy

ROOT = Path(__file__).resolve().parents[3]
POLICY = ROOT / "fixtures" / "policies" / "dissertation_shape.policy.json"
TOKEN = "s3cret-token-0123456789"

BASE = f"""
[policy]
source = "{POLICY}"

[probe]
interval_s = 0.01
window_s = 0.5
stale_after_s = 0.5
min_samples = 5

[decision]
dwell_s = 0.2
hysteresis = 0.2
evaluate_every_s = 0.02

[actuator]
kind = "dry-run"
deadline_s = 0.2
retries = 2
confirm_delay_s = 0.02

[status]
listen = "127.0.0.1:0"
token = "{TOKEN}"

[[path]]
id = "a"
probe_host = "127.0.0.1"
probe_port = PORT_A
port = "1"

[[path]]
id = "b"
probe_host = "127.0.0.1"
probe_port = PORT_B
port = "2"

[[flow]]
id = "game"
class = "cloud-gaming.fast"
match = {{ udp_dst = 50000 }}
initial_path = "a"
"""


@pytest.fixture(scope="session")
def policy() -> LoadedPolicy:
    return load_policy(str(POLICY))


@pytest.fixture
def write_config(tmp_path: Path) -> Callable[..., Path]:
    """Write the base config, with text replacements, ports and extra lines."""

    def write(
        replace: dict[str, str] | None = None,
        extra: str = "",
        ports: tuple[int, int] = (40001, 40002),
    ) -> Path:
        text = BASE.replace("PORT_A", str(ports[0])).replace("PORT_B", str(ports[1]))
        for old, new in (replace or {}).items():
            assert old in text, old
            text = text.replace(old, new)
        path = tmp_path / "steer.toml"
        path.write_text(text + extra, encoding="utf-8")
        return path

    return write
