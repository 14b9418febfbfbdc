"""The check stores only a valid capabilities document (issue 13: a listener's reply was
stored verbatim), and the backend reads at most 1 MiB of any agent answer."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.stations.agent_client import MAX_RESPONSE_BYTES, AgentClient, AgentUnreachable
from qoelab.stations.capabilities import InvalidCapabilities, validate_capabilities
from qoelab.stations.models import Station
from qoelab.stations.tests.listener import listening
from qoelab.testing import DryRunAgent

TOKEN = "owner-station-token-0123456789"

#: What ``Agent.capabilities`` of netem-agent returns for a bridge with the netlink backend.
VALID: dict[str, Any] = {
    "backend": "netlink",
    "agent_version": "0.4.0",
    "topology": {
        "mode": "bridge",
        "client_iface": "eth-client",
        "server_iface": "eth-server",
        "flow_filter": {"server_addr": "10.0.0.2", "ports": [27015], "protocol": "udp"},
    },
    "shaping": {
        "upstream": {
            "direction": "client → server",
            "interface": "eth-server",
            "attach": "egress",
            "device": "eth-server",
        },
        "downstream": {
            "direction": "server → client",
            "interface": "eth-client",
            "attach": "egress",
            "device": "eth-client",
        },
    },
    "interfaces": [
        {
            "name": "eth-client",
            "index": 3,
            "up": True,
            "kind": "veth",
            "mtu": 1500,
            "root_qdisc": {"kind": "netem", "handle": "1:", "parent": "root"},
        },
        {"name": "lo", "index": 1, "up": True, "kind": None, "mtu": 65536, "root_qdisc": None},
    ],
    "configured_interfaces_present": {"eth-client": True, "eth-server": False},
    "kernel": {"sch_netem": {"available": True, "how": "loaded"}, "kernel": "6.8.0-49-generic"},
    "profile_fields": ["delay_ms", "jitter_ms", "loss_pct"],
    "jitter_distributions": ["uniform", "normal"],
    "loss_models": ["random", "gilbert_elliott"],
    "lease": {"default_seconds": 30, "max_seconds": 600.0},
}


def forged(change: Any) -> dict[str, Any]:
    document = copy.deepcopy(VALID)
    change(document)
    return document


FORGERIES = {
    "unknown key": forged(lambda d: d.update(stolen="Bearer x")),
    "unknown nested key": forged(lambda d: d["lease"].update(note="x")),
    "missing key": forged(lambda d: d.pop("backend")),
    "wrong type": forged(lambda d: d["interfaces"][0].update(mtu="1500")),
    "bool for int": forged(lambda d: d["interfaces"][0].update(index=True)),
    "long text": forged(lambda d: d.update(backend="x" * 41)),
    "control characters": forged(lambda d: d.update(backend="net\x1b[2Jlink")),
    "long interface name": forged(lambda d: d["interfaces"][0].update(name="i" * 16)),
    "too many interfaces": forged(lambda d: d.update(interfaces=d["interfaces"] * 300)),
    "not finite": forged(lambda d: d["lease"].update(max_seconds=float("inf"))),
    "bad direction": forged(lambda d: d["shaping"].update(sideways=d["shaping"]["upstream"])),
    "not an object": ["netlink"],
}


def test_the_agents_document_passes_as_it_is() -> None:
    assert validate_capabilities(copy.deepcopy(VALID)) == VALID


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forged_document_is_refused_without_echoing_it(name: str) -> None:
    with pytest.raises(InvalidCapabilities) as caught:
        validate_capabilities(FORGERIES[name])
    message = str(caught.value)
    assert message.startswith("the agent's capabilities are not a valid capabilities document")
    assert "Bearer" not in message and "\x1b" not in message and "xxxxx" not in message


def test_unknown_keys_are_named_only_when_they_are_plain_identifiers() -> None:
    with pytest.raises(InvalidCapabilities, match="capabilities: unknown keys 'stolen'"):
        validate_capabilities(FORGERIES["unknown key"])
    with pytest.raises(InvalidCapabilities, match=r"capabilities: unknown keys 1\)") as caught:
        validate_capabilities(forged(lambda d: d.update({"<script>": 1})))
    assert "<script>" not in str(caught.value)


def owned_station(researcher: Any, url: str) -> Station:
    return Station.objects.create(name="Seat 1", agent_url=url, agent_token=TOKEN, owner=researcher)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "reply",
    [
        json.dumps({**VALID, "stolen": "whatever the listener says"}).encode(),
        b"<html>not an agent</html>",
        b"[" * 100_000 + b"]" * 100_000,  # nested too deep for the JSON parser
        b'{"backend": "' + b"x" * (MAX_RESPONSE_BYTES + 10) + b'"}',  # over the size cap
    ],
    ids=["forged", "html", "deep", "oversized"],
)
def test_a_check_with_a_foreign_reply_stores_nothing_of_it(
    researcher_client: APIClient, researcher: Any, reply: bytes
) -> None:
    with listening(reply) as listener:
        station = owned_station(researcher, listener.url)
        station.agent_capabilities = {"backend": "from an earlier check"}
        station.save()

        response = researcher_client.post(f"/api/v1/stations/{station.pk}/check/")

        assert response.status_code == 200, response.content
        assert len(listener.requests) >= 1
    body = response.json()
    assert body["last_check_ok"] is False and body["agent_capabilities"] is None
    station.refresh_from_db()
    assert station.agent_capabilities is None and station.last_check_ok is False
    assert "listener" not in station.last_check_message
    assert (
        "xxxxxxxx" not in station.last_check_message and "<html>" not in station.last_check_message
    )
    assert len(station.last_check_message) < 400


def test_the_client_reads_at_most_the_cap_of_an_answer() -> None:
    with (
        listening(b" " * (MAX_RESPONSE_BYTES + 1)) as listener,
        pytest.raises(AgentUnreachable, match="more than 1024 KiB"),
    ):
        AgentClient(listener.url, TOKEN).health()
    exactly = json.dumps({"status": "ok", "pad": "x" * (MAX_RESPONSE_BYTES - 40)})
    with listening(exactly.encode()) as listener:
        assert AgentClient(listener.url, TOKEN).health()["status"] == "ok"


@pytest.mark.slow
@pytest.mark.django_db
def test_the_real_agents_capabilities_are_stored(
    researcher_client: APIClient, researcher: Any, dry_run_agent: DryRunAgent
) -> None:
    station = Station.objects.create(
        name="Seat 1",
        agent_url=dry_run_agent.url,
        agent_token=dry_run_agent.token,
        owner=researcher,
    )
    response = researcher_client.post(f"/api/v1/stations/{station.pk}/check/")
    assert response.status_code == 200
    body = response.json()
    assert body["last_check_ok"] is True, body["last_check_message"]
    assert body["agent_capabilities"] == dry_run_agent.request("GET", "/v1/capabilities")
