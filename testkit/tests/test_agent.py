"""The dry-run agent launcher: it starts a real agent that answers, restarts it on the same
port, stops it on leaving the ``with`` block and reports an agent that cannot start."""

from __future__ import annotations

from pathlib import Path

import pytest
from qoelab_testkit.agent import DryRunAgent, healthy


def test_agent_answers_records_operations_and_restarts_on_its_port(tmp_path: Path) -> None:
    with DryRunAgent(tmp_path / "agent", lease_seconds=5) as agent:
        assert healthy(agent.url)
        assert agent.request("GET", "/v1/profile")["applied"] is False
        profile = {"downstream": {"delay_ms": 40}, "upstream": {"loss_pct": 1}}
        agent.request("PUT", "/v1/profile", {"profile": profile, "lease_seconds": 5})
        devices = {op["dev"] for op in agent.operations() if op.get("kind") == "netem"}
        assert devices == {agent.client_iface, agent.server_iface}
        agent.stop()
        assert not healthy(agent.url)
        agent.stop()  # idempotent
        port = agent.port
        agent.start()
        assert agent.port == port and healthy(agent.url)
    assert not healthy(agent.url)
    log = agent.log.read_text()
    assert log.count(f'"listening": "127.0.0.1:{port}"') == 2  # both starts, one log
    assert '"stopped": "SIGTERM"' in log  # a warm stop: the agent restored the interfaces


def test_an_agent_that_exits_is_reported_with_its_log(tmp_path: Path) -> None:
    agent = DryRunAgent(tmp_path, start_timeout=20)
    agent.config.write_text("[server]\nport = 'not a number'\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"agent exited \(code 1\)(.|\n)*ValueError"):
        agent.start()
