"""The agent client keeps one HTTP session per thread: connections are reused between
calls, and a kept-open connection the agent dropped is replaced once."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from qoelab.stations import agent_client
from qoelab.stations.agent_client import AgentClient, AgentUnreachable


class KeepAliveAgent:
    """An HTTP/1.1 health endpoint that records the client port of every answered request
    and can drop connections without answering (as an agent restarting would)."""

    def __init__(self) -> None:
        self.ports: list[int] = []
        self.drop_next = 0  # how many of the next requests to drop unanswered
        agent = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if agent.drop_next:
                    agent.drop_next -= 1
                    self.close_connection = True
                    self.connection.close()
                    return
                agent.ports.append(self.client_address[1])
                data = json.dumps({"status": "ok", "version": "keep-alive"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def keep_alive_agent():  # type: ignore[no-untyped-def]
    agent_client._drop_session()  # a fresh session for this thread
    agent = KeepAliveAgent()
    yield agent
    agent.stop()
    agent_client._drop_session()


def test_calls_from_one_thread_reuse_one_connection(keep_alive_agent: KeepAliveAgent) -> None:
    client = AgentClient(keep_alive_agent.url, "token")
    for _ in range(5):
        assert client.health()["status"] == "ok"
    assert len(keep_alive_agent.ports) == 5
    assert len(set(keep_alive_agent.ports)) == 1  # one TCP connection for all five


def test_each_thread_has_its_own_connection(keep_alive_agent: KeepAliveAgent) -> None:
    client = AgentClient(keep_alive_agent.url, "token")
    client.health()

    def other_thread() -> None:
        client.health()
        client.health()
        agent_client._drop_session()

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join()
    client.health()
    first, other, again = (
        keep_alive_agent.ports[0],
        keep_alive_agent.ports[1],
        keep_alive_agent.ports[3],
    )
    assert keep_alive_agent.ports[2] == other != first == again


def test_a_dropped_kept_open_connection_is_replaced_once(keep_alive_agent: KeepAliveAgent) -> None:
    client = AgentClient(keep_alive_agent.url, "token")
    client.health()
    keep_alive_agent.drop_next = 1  # the agent drops the kept-open connection
    assert client.health()["status"] == "ok"  # answered on a new connection
    assert len(set(keep_alive_agent.ports)) == 2
    keep_alive_agent.drop_next = 2  # the new connection is dropped too: reported, once
    with pytest.raises(AgentUnreachable, match="unreachable"):
        client.health()
    assert keep_alive_agent.drop_next == 0  # two attempts, not more
    assert client.health()["status"] == "ok"


def test_an_agent_that_is_gone_is_unreachable(keep_alive_agent: KeepAliveAgent) -> None:
    client = AgentClient(keep_alive_agent.url, "token")
    client.health()
    keep_alive_agent.drop_next = 10**6  # its open connection dies with it
    keep_alive_agent.stop()
    with pytest.raises(AgentUnreachable, match="unreachable"):
        client.health()
