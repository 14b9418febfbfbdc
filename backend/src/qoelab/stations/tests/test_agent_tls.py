"""Agent transport (issue 13): the backend verifies an https:// agent against the station's
CA certificate and never sends the token in clear. A real agent (in-process, dry-run
backend) on real sockets on 127.0.0.1."""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings
from netem_agent.config import config_from_dict
from netem_agent.server import Service
from netem_agent.tls import make_self_signed
from qoelab_testkit.prerequisites import require
from rest_framework.test import APIClient

from qoelab.stations.agent_client import AgentClient, AgentUnreachable
from qoelab.stations.agent_tls import ca_bundle_path, validate_ca_pem
from qoelab.stations.models import Station

TOKEN = "agent-tls-token-0123456789"


def pair(directory: Path, *names: str) -> tuple[Path, Path]:
    require(shutil.which("openssl") is not None, "the openssl binary (Debian: openssl)")
    made = make_self_signed(directory, list(names))
    return Path(made["cert_file"]), Path(made["key_file"])


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    return {
        "local": pair(tmp_path_factory.mktemp("local"), "127.0.0.1", "localhost"),
        "other": pair(tmp_path_factory.mktemp("other"), "127.0.0.1", "localhost"),
        "elsewhere": pair(tmp_path_factory.mktemp("elsewhere"), "10.9.0.2"),
    }


def serve(tmp_path: Path, cert: tuple[Path, Path] | None) -> Service:
    server: dict[str, Any] = {"listen": "127.0.0.1", "port": 0, "token": TOKEN}
    if cert is not None:
        server.update(tls_cert_file=str(cert[0]), tls_key_file=str(cert[1]))
    service = Service(
        config_from_dict(
            {
                "server": server,
                "topology": {"mode": "bridge", "client_iface": "eth-c", "server_iface": "eth-s"},
                "agent": {"backend": "dry-run", "state_dir": str(tmp_path / "state")},
            }
        )
    )
    service.start()
    return service


@pytest.fixture
def tls_agent(tmp_path: Path, certs: dict[str, tuple[Path, Path]]) -> Iterator[Service]:
    service = serve(tmp_path, certs["local"])
    yield service
    service.stop()


@pytest.fixture
def elsewhere_agent(tmp_path: Path, certs: dict[str, tuple[Path, Path]]) -> Iterator[Service]:
    service = serve(tmp_path, certs["elsewhere"])
    yield service
    service.stop()


def station(url: str, ca: Path | None) -> Station:
    pem = validate_ca_pem(ca.read_text()) if ca is not None else ""
    return Station.objects.create(
        name="TLS seat", agent_url=url, agent_token=TOKEN, agent_ca_cert=pem
    )


@pytest.fixture
def data_dir(settings: Any, tmp_path: Path) -> Path:
    """QOELAB_DATA_DIR (where the station CA files go) in a temporary folder."""
    path = tmp_path / "data"
    settings.DATA_DIR = path
    return path


def https(service: Service, host: str = "127.0.0.1") -> str:
    return f"https://{host}:{service.address[1]}"


@pytest.mark.django_db
def test_the_client_trusts_the_agent_certificate_of_the_station(
    tls_agent: Service, certs: dict[str, tuple[Path, Path]], data_dir: Path
) -> None:
    seat = station(https(tls_agent), certs["local"][0])
    client = AgentClient.for_station(seat)
    assert client.capabilities()["backend"] == "dry-run"
    assert client.clear()["restored"] is True
    # The CA file is named after its content, one per distinct certificate text ...
    ca_file = client.ca_file()
    assert ca_file == ca_bundle_path(seat.agent_ca_cert, data_dir)
    assert ca_file is not None and ca_file.read_text() == seat.agent_ca_cert
    assert list((data_dir / "agent-ca").iterdir()) == [ca_file]
    # ... and read back before use: a file replaced behind the backend's back is rewritten.
    ca_file.write_text(certs["other"][0].read_text())
    assert AgentClient.for_station(seat).health()["status"] == "ok"
    assert ca_file.read_text() == seat.agent_ca_cert


@pytest.mark.django_db
def test_an_unwritable_data_dir_is_a_clear_agent_error(
    certs: dict[str, tuple[Path, Path]], settings: Any, tmp_path: Path
) -> None:
    settings.DATA_DIR = tmp_path / "file"
    settings.DATA_DIR.write_text("not a directory")
    seat = station("https://127.0.0.1:9", certs["local"][0])
    with pytest.raises(AgentUnreachable, match="cannot store the station's agent CA"):
        AgentClient.for_station(seat).health()


@pytest.mark.django_db
def test_a_certificate_the_station_does_not_trust_is_unreachable(
    tls_agent: Service, certs: dict[str, tuple[Path, Path]], data_dir: Path
) -> None:
    for ca in (certs["other"][0], None):  # another self-signed certificate; system CAs
        with pytest.raises(AgentUnreachable, match=r"certificate .* is not trusted"):
            AgentClient.for_station(station(https(tls_agent), ca)).capabilities()
        Station.objects.all().delete()


@pytest.mark.django_db
def test_a_certificate_for_another_host_is_a_hostname_mismatch(
    elsewhere_agent: Service, certs: dict[str, tuple[Path, Path]], data_dir: Path
) -> None:
    seat = station(https(elsewhere_agent), certs["elsewhere"][0])
    with pytest.raises(AgentUnreachable, match=r"hostname mismatch.*certificate"):
        AgentClient.for_station(seat).health()


@pytest.mark.django_db
def test_https_to_a_plain_http_agent_says_so(tmp_path: Path, data_dir: Path) -> None:
    service = serve(tmp_path, None)
    try:
        with pytest.raises(AgentUnreachable, match=r"TLS handshake .* failed"):
            AgentClient.for_station(station(https(service), None)).health()
    finally:
        service.stop()


@pytest.mark.django_db
def test_plain_http_to_an_https_agent_says_so(tls_agent: Service) -> None:
    seat = station(f"http://127.0.0.1:{tls_agent.address[1]}", None)
    with pytest.raises(AgentUnreachable, match="if it serves HTTPS, use an https:// URL"):
        AgentClient.for_station(seat).health()


@pytest.mark.django_db
def test_plain_http_to_another_machine_is_refused_before_sending(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import requests

    def no_request(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a request was sent")

    monkeypatch.setattr(requests.Session, "request", no_request)  # the client's session
    seat = station("http://192.0.2.10:8787", None)
    with override_settings(QOELAB_AGENT_ALLOW_PLAIN_HTTP=False):
        with pytest.raises(AgentUnreachable, match="in clear"):
            AgentClient.for_station(seat).capabilities()
        seat.agent_url = "http://127.0.0.1:9"  # loopback stays allowed (demo, dry-run)
        with pytest.raises(AssertionError, match="a request was sent"):
            AgentClient.for_station(seat).capabilities()


class WireTap:
    """A TCP relay that keeps what the client sent (what the lab network would carry)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target, self.seen = target, bytearray()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(self.target)
                for a, b, keep in ((client, upstream, True), (upstream, client, False)):
                    threading.Thread(target=self._pipe, args=(a, b, keep), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, keep: bool) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                if keep:
                    self.seen.extend(data)
                dst.sendall(data)
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


@pytest.mark.django_db
def test_the_token_is_never_on_the_wire_in_clear(
    tls_agent: Service, certs: dict[str, tuple[Path, Path]], data_dir: Path
) -> None:
    tap = WireTap(tls_agent.address)
    try:
        seat = station(f"https://localhost:{tap.port}", certs["local"][0])
        assert AgentClient.for_station(seat).status()["applied"] is False
    finally:
        tap.listener.close()
    assert len(tap.seen) > 200 and TOKEN.encode() not in tap.seen


@pytest.mark.django_db
def test_the_station_api_takes_a_ca_certificate_and_checks_over_tls(
    researcher_client: APIClient,
    tls_agent: Service,
    certs: dict[str, tuple[Path, Path]],
    data_dir: Path,
) -> None:
    pem = certs["local"][0].read_text()
    body = {"name": "Seat TLS", "agent_url": https(tls_agent), "agent_token": TOKEN}
    response = researcher_client.post("/api/v1/stations/", {**body, "agent_ca_cert": pem})
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["agent_ca_cert"] == pem and len(created["agent_ca_fingerprints"]) == 1
    checked = researcher_client.post(f"/api/v1/stations/{created['id']}/check/").json()
    assert checked["last_check_ok"] is True, checked["last_check_message"]

    key = certs["local"][1].read_text()
    lines = pem.splitlines()
    corrupt = "\n".join([*lines[:2], "A" * len(lines[2]), *lines[3:]])
    for bad, reason in (
        ("not a certificate", "PEM certificates"),
        (key, "private key"),
        (corrupt, "not a valid certificate"),
        (pem + "trailing words", "outside"),
    ):
        response = researcher_client.post(
            "/api/v1/stations/", {**body, "name": "Bad", "agent_ca_cert": bad}
        )
        assert response.status_code == 400 and reason in str(response.json()), response.content
    http_with_ca = {**body, "name": "Mixed", "agent_url": "http://127.0.0.1:9"}
    response = researcher_client.post("/api/v1/stations/", {**http_with_ca, "agent_ca_cert": pem})
    assert response.status_code == 400 and "https://" in str(response.json())
    with override_settings(QOELAB_AGENT_ALLOW_PLAIN_HTTP=False):
        plain = {**body, "name": "Plain", "agent_url": "http://192.0.2.10:8787"}
        response = researcher_client.post("/api/v1/stations/", plain)
        assert response.status_code == 400 and "in clear" in str(response.json())
    assert Station.objects.count() == 1
