"""Config loading: a valid file loads; each bad value is refused with its key named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from qoe_steer.config import ConfigError, load_config


def test_valid_config_loads(write_config: Callable[..., Path]) -> None:
    config = load_config(write_config())
    assert [p.id for p in config.paths] == ["a", "b"]
    assert config.paths[0].port == "1" and config.paths[1].probe_port == 40002
    assert config.flows[0].spec.policy_class == "cloud-gaming.fast"
    assert config.flows[0].initial_path == "a"
    assert config.actuator.kind == "dry-run"
    assert config.actuator.options == {
        "confirm_delay_s": 0.02,
        "fail_confirm": False,
        "fail_check": False,
    }
    assert (config.status.host, config.status.port) == ("127.0.0.1", 0)
    assert config.probe.delay_percentile == "p95" and config.decision.dwell_s == 0.2


# (replacement, extra text, expected start of the error message)
CASES = [
    ({'port = "2"': 'port = "1"'}, "", "path[1].port: '1' is used by path 'a' too"),
    ({'id = "b"': 'id = "a"'}, "", "path[1].id: 'a' is used by path[0]"),
    ({"probe_port = 40002": "probe_port = 70000"}, "", "path[1].probe_port: 70000 is outside"),
    ({"probe_port = 40002": 'probe_port = "x"'}, "", "path[1].probe_port: 'x' is not an integer"),
    ({'initial_path = "a"': 'initial_path = "zz"'}, "", "flow[0].initial_path: 'zz' is not"),
    ({'kind = "dry-run"': 'kind = "pox"'}, "", "actuator.kind: 'pox' is not one of"),
    ({"confirm_delay_s = 0.02": "confirm_delay_s = -1"}, "", "actuator.confirm_delay_s:"),
    ({"confirm_delay_s = 0.02": "bridge = 'br0'"}, "", "actuator.bridge: unknown key"),
    ({"retries = 2": "retries = 1.5"}, "", "actuator.retries: 1.5 is not an integer"),
    ({"hysteresis = 0.2": "hysteresis = 1.0"}, "", "decision.hysteresis: 1.0 is outside"),
    ({"interval_s = 0.01": "interval_s = 'fast'"}, "", "probe.interval_s: 'fast' is not a number"),
    ({"min_samples = 5": "min_samples = 0"}, "", "probe.min_samples: 0 is outside"),
    ({"window_s = 0.5": "window_s = 0.5\ndelay_percentile = 'p90'"}, "", "probe.delay_percentile"),
    ({"window_s = 0.5": "window_s = 0.5\nspeed = 1"}, "", "probe.speed: unknown key"),
    ({'listen = "127.0.0.1:0"': 'listen = "nowhere"'}, "", "status.listen: 'nowhere' is not"),
    ({"token = ": "token = 'short' #"}, "", "status.token: must be at least 16"),
    ({}, "[extra]\nx = 1\n", "extra: unknown section"),
    ({"match = { udp_dst = 50000 }": "match = {}"}, "", "flow[0].match: missing or empty"),
]


@pytest.mark.parametrize(("replace", "extra", "message"), CASES)
def test_bad_config_names_the_key(
    write_config: Callable[..., Path], replace: dict[str, str], extra: str, message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write_config(replace, extra))
    assert str(info.value).startswith(message), str(info.value)
    assert "\n" not in str(info.value)


def test_one_path_is_refused(write_config: Callable[..., Path], tmp_path: Path) -> None:
    text = write_config().read_text()
    cut = text.index('[[path]]\nid = "b"')
    end = text.index("[[flow]]")
    bad = tmp_path / "one.toml"
    bad.write_text(text[:cut] + text[end:])
    with pytest.raises(ConfigError, match=r"^path: at least two"):
        load_config(bad)


def test_not_toml_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[policy\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
