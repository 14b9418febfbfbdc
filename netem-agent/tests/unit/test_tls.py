"""Agent transport (issue 13): HTTPS with a self-signed certificate, and no plain HTTP on a
non-loopback address unless explicitly allowed. Real sockets on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import stat
import subprocess
import threading
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from netem_agent.cli import EXIT_USAGE, main
from netem_agent.config import ConfigError, config_from_dict, is_loopback
from netem_agent.server import Service
from netem_agent.tls import fingerprint

TOKEN = "tls-test-token-0123456789"
REPO = Path(__file__).resolve().parents[3]
EXAMPLE_CONFIGS = [
    REPO / "netem-agent" / "config.example.toml",
    REPO / "deploy" / "netem-agent" / "agent.toml.example",
]


def make_cert(directory: Path, *names: str) -> tuple[Path, Path]:
    args = ["make-cert", "--out-dir", str(directory)]
    for name in names:
        args += ["--name", name]
    assert main(args) == 0
    return directory / "agent.crt", directory / "agent.key"


@pytest.fixture(scope="module")
def cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_cert(tmp_path_factory.mktemp("tls"), "127.0.0.1", "localhost")


def doc(tmp_path: Path, listen: str = "127.0.0.1", **server: Any) -> dict[str, Any]:
    return {
        "server": {"listen": listen, "port": 0, "token": TOKEN, **server},
        "topology": {"mode": "bridge", "client_iface": "eth-c", "server_iface": "eth-s"},
        "agent": {"backend": "dry-run", "state_dir": str(tmp_path / "state")},
    }


@pytest.fixture
def tls_service(tmp_path: Path, cert: tuple[Path, Path]) -> Iterator[Service]:
    crt, key = cert
    svc = Service(config_from_dict(doc(tmp_path, tls_cert_file=str(crt), tls_key_file=str(key))))
    svc.start()
    try:
        yield svc
    finally:
        svc.stop()


def get(url: str, context: ssl.SSLContext | None, token: str | None = TOKEN) -> Any:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10, context=context) as response:
        return json.loads(response.read())


def test_make_cert_writes_a_private_key_and_prints_the_fingerprint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crt, key = make_cert(tmp_path, "10.9.0.2", "emulator-1.lab")
    out = json.loads(capsys.readouterr().out)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert out["subject_alt_names"] == ["IP:10.9.0.2", "DNS:emulator-1.lab"]
    openssl = subprocess.run(
        ["openssl", "x509", "-in", str(crt), "-noout", "-fingerprint", "-sha256", "-ext",
         "subjectAltName"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert out["sha256_fingerprint"] == fingerprint(crt.read_text())
    assert f"Fingerprint={out['sha256_fingerprint']}" in openssl
    assert "IP Address:10.9.0.2" in openssl and "DNS:emulator-1.lab" in openssl
    # An existing pair is kept unless --force.
    assert main(["make-cert", "--out-dir", str(tmp_path), "--name", "10.9.0.3"]) == EXIT_USAGE
    assert out["sha256_fingerprint"] == fingerprint(crt.read_text())


def test_https_agent_answers_a_client_that_trusts_its_certificate(
    tls_service: Service, cert: tuple[Path, Path]
) -> None:
    host, port = tls_service.address
    assert tls_service.scheme == "https"
    trusting = ssl.create_default_context(cafile=str(cert[0]))
    assert tls_service.httpd.tls is not None
    assert tls_service.httpd.tls.minimum_version == ssl.TLSVersion.TLSv1_2
    caps = get(f"https://{host}:{port}/v1/capabilities", trusting)
    assert caps["backend"] == "dry-run"
    assert get(f"https://localhost:{port}/healthz", trusting, token=None)["status"] == "ok"

    # A client with only the system CAs refuses the self-signed certificate...
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
        get(f"https://{host}:{port}/healthz", ssl.create_default_context(), token=None)
    # ... and plain HTTP gets no answer at all; the agent goes on serving afterwards.
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        get(f"http://{host}:{port}/v1/capabilities", None)
    assert get(f"https://{host}:{port}/v1/profile", trusting)["applied"] is False


def test_a_silent_client_does_not_block_the_next_handshake(
    tls_service: Service, cert: tuple[Path, Path]
) -> None:
    host, port = tls_service.address
    with socket.create_connection((host, port)):  # connects, never says hello
        trusting = ssl.create_default_context(cafile=str(cert[0]))
        assert get(f"https://{host}:{port}/healthz", trusting, token=None)["status"] == "ok"


@pytest.mark.parametrize("listen", ["0.0.0.0", "192.168.100.10", "::", "agent.lab", ""])
def test_plain_http_on_a_non_loopback_address_is_refused(tmp_path: Path, listen: str) -> None:
    assert not is_loopback(listen)
    with pytest.raises(ConfigError, match="in clear"):
        config_from_dict(doc(tmp_path, listen))
    assert config_from_dict(doc(tmp_path, listen, allow_plain_http=True)).allow_plain_http
    with pytest.raises(ConfigError, match="true or false"):
        config_from_dict(doc(tmp_path, listen, allow_plain_http="yes"))


@pytest.mark.parametrize("listen", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_plain_http_on_loopback_stays_allowed(tmp_path: Path, listen: str) -> None:
    cfg = config_from_dict(doc(tmp_path, listen))
    assert not cfg.tls and not cfg.allow_plain_http


def test_serve_refuses_to_start_on_a_lab_address_without_tls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "agent.toml"
    config.write_text(
        '[server]\nlisten = "0.0.0.0"\nport = 0\ntoken = "' + TOKEN + '"\n'
        '[topology]\nmode = "bridge"\nclient_iface = "eth-c"\nserver_iface = "eth-s"\n'
        '[agent]\nbackend = "dry-run"\nstate_dir = "state"\n'
    )
    assert main(["serve", "--config", str(config)]) == EXIT_USAGE
    error = json.loads(capsys.readouterr().err)["error"]
    assert "not a loopback address and no TLS is configured" in error
    assert "allow_plain_http" in error and "make-cert" in error
    assert not (tmp_path / "state").exists()  # refused before anything started


def test_tls_settings_are_checked(tmp_path: Path, cert: tuple[Path, Path]) -> None:
    crt, key = cert
    with pytest.raises(ConfigError, match="go together"):
        config_from_dict(doc(tmp_path, tls_cert_file=str(crt)))
    cfg = config_from_dict(doc(tmp_path, tls_cert_file=str(crt), tls_key_file=str(tmp_path)))
    with pytest.raises(ConfigError, match="cannot load certificate"):
        Service(cfg)
    cfg = config_from_dict(doc(tmp_path, tls_cert_file="nope.crt", tls_key_file=str(key)))
    with pytest.raises(ConfigError, match="no such file"):
        Service(cfg)


class WireTap:
    """A TCP relay on 127.0.0.1 that keeps every byte the client sent (what anyone on the
    lab network would see)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.seen = bytearray()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, record: bool) -> None:
        try:
            while data := src.recv(65536):
                if record:
                    self.seen.extend(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()


@pytest.mark.parametrize("example", EXAMPLE_CONFIGS, ids=lambda p: p.parent.name)
def test_the_example_configs_never_send_the_token_in_clear(
    tmp_path: Path, cert: tuple[Path, Path], example: Path
) -> None:
    shipped = tomllib.loads(example.read_text())
    server = shipped["server"]
    assert not is_loopback(server["listen"]) and not server.get("allow_plain_http", False)
    # Without its TLS keys the shipped configuration does not start at all ...
    plain = {**shipped, "server": {k: v for k, v in server.items() if not k.startswith("tls_")}}
    plain["server"]["token"] = TOKEN
    del plain["server"]["token_file"]
    with pytest.raises(ConfigError, match="in clear"):
        config_from_dict(plain, base=tmp_path)
    # ... and as shipped (only the files and the address moved to this test) it serves
    # HTTPS: a tap between client and agent sees no token.
    (tmp_path / "token").write_text(TOKEN + "\n")
    local = {
        **shipped,
        "server": {
            **server,
            "listen": "127.0.0.1",
            "port": 0,
            "token_file": "token",
            "tls_cert_file": str(cert[0]),
            "tls_key_file": str(cert[1]),
        },
        "agent": {**shipped["agent"], "backend": "dry-run", "state_dir": "state"},
    }
    svc = Service(config_from_dict(local, base=tmp_path))
    svc.start()
    tap = WireTap(svc.address)
    try:
        trusting = ssl.create_default_context(cafile=str(cert[0]))
        assert "interfaces" in get(f"https://localhost:{tap.port}/v1/capabilities", trusting)
    finally:
        tap.close()
        svc.stop()
    assert len(tap.seen) > 200  # the request went through the tap ...
    assert TOKEN.encode() not in tap.seen and b"Authorization" not in tap.seen  # ... encrypted


def test_check_reports_the_tls_pair_and_its_fingerprint(
    tmp_path: Path, cert: tuple[Path, Path]
) -> None:
    from netem_agent.check import run_checks

    crt, key = cert
    tls = config_from_dict(doc(tmp_path, tls_cert_file=str(crt), tls_key_file=str(key)))
    entry = next(c for c in run_checks(tls)["checks"] if c["check"] == "TLS certificate and key")
    assert entry["ok"] and fingerprint(crt.read_text()) in entry["detail"]
    broken = config_from_dict(doc(tmp_path, tls_cert_file=str(crt), tls_key_file=str(crt)))
    entry = next(c for c in run_checks(broken)["checks"] if c["check"] == "TLS certificate and key")
    assert not entry["ok"] and entry["required"] and "cannot load certificate" in entry["detail"]
