"""Policy loading: the example loads from file and URL; wrong documents are refused."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from qoe_steer.policy_source import (
    LoadedPolicy,
    PolicySourceError,
    check_flow_classes,
    check_policy,
    load_policy,
)

from .conftest import POLICY


def _doc() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(POLICY.read_text())
    return document


def test_example_policy_loads(policy: LoadedPolicy) -> None:
    assert policy.schema == "urn:qoe-lab:schema:qoe-policy:2.0"
    assert policy.generated_at == "2026-01-01T00:00:00Z"
    assert policy.class_("cloud-gaming.fast")["pace"] == "fast"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "$schema",
            "urn:qoe-lab:schema:qoe-policy:3.0",
            "$schema 'urn:qoe-lab:schema:qoe-policy:3.0'",
        ),
        ("policy_version", "1.0", "policy_version '1.0' is not supported"),
        ("kind", "something-else", "kind 'something-else' is not supported"),
    ],
)
def test_unknown_schema_version_or_kind_is_refused(key: str, value: str, message: str) -> None:
    doc = _doc()
    doc[key] = value
    with pytest.raises(PolicySourceError, match="not supported") as info:
        check_policy(doc, "p.json", "cloud-gaming")
    assert message in str(info.value)


def test_schema_invalid_document_is_refused() -> None:
    doc = _doc()
    del doc["classes"][0]["directions"]
    with pytest.raises(PolicySourceError, match="invalid policy: classes/0"):
        check_policy(doc, "p.json", "cloud-gaming")


def test_policy_for_another_application_is_refused() -> None:
    # the service configured for another application refuses the cloud-gaming policy
    with pytest.raises(PolicySourceError, match="no class of application 'video-streaming'"):
        check_policy(_doc(), "p.json", "video-streaming")
    # a document whose classes claim another application fails the 2.0 schema already
    doc = copy.deepcopy(_doc())
    for cls in doc["classes"]:
        cls["application"] = "video-streaming"
    with pytest.raises(PolicySourceError, match="application"):
        check_policy(doc, "p.json", "cloud-gaming")


def test_unreadable_and_non_json_sources_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PolicySourceError, match="cannot read"):
        load_policy(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(PolicySourceError, match="not JSON"):
        load_policy(str(bad))


def test_flow_classes_must_exist(policy: LoadedPolicy) -> None:
    check_flow_classes(policy, [("flow[0].class", "cloud-gaming.fast")])
    with pytest.raises(PolicySourceError, match=r"^flow\[1\].class: class 'chess' is not in"):
        check_flow_classes(policy, [("flow[0].class", "cloud-gaming"), ("flow[1].class", "chess")])


@pytest.fixture
def policy_server() -> Iterator[tuple[str, list[str | None]]]:
    body = POLICY.read_bytes()
    seen: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization"))
            if self.path != "/policy":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def test_policy_from_url_sends_the_bearer_token(
    policy_server: tuple[str, list[str | None]],
) -> None:
    base, seen = policy_server
    loaded = load_policy(f"{base}/policy", token="tok-123")
    assert loaded.source == f"{base}/policy"
    assert seen == ["Bearer tok-123"]
    with pytest.raises(PolicySourceError, match="HTTP 404"):
        load_policy(f"{base}/nothing")
