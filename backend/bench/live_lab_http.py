"""A keep-alive HTTP/1.1 client for the live-lab bench (a plain socket; stdlib only).

One client is one browser tab: one connection, reused while the server keeps it open
(gthread workers do; sync workers close after every answer and the client reconnects,
as a browser would), with the cookies the server set (the researcher's sign-in).

The load generator shares the two cores with the server, so it must cost little per
request: the request is written in one ``sendall`` and the answer parsed by hand (status
line, headers, a ``Content-Length`` or chunked body) instead of by ``http.client``, whose
``email``-based header parser cost about half a millisecond of CPU per answer. The timing
is the same: from before the request is written until its whole body has been read.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any


class ClosedBeforeAnswer(ConnectionError):
    """The server closed the connection before sending any byte of an answer."""


#: What a request on a keep-alive connection that the server has just closed runs into.
STALE_CONNECTION = (ClosedBeforeAnswer, ConnectionResetError, BrokenPipeError)
#: Answers without a body (RFC 9110 §6.4.1).
NO_BODY = {204, 304}


@dataclass(frozen=True)
class Answer:
    status: int  # 0: no answer (connection refused, reset, timed out)
    body: bytes
    headers: dict[str, str]
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body)


class Client:
    def __init__(self, host: str, port: int, *, timeout: float = 30.0) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self.headers: dict[str, str] = {}
        self.cookies: dict[str, str] = {}
        self.sock: socket.socket | None = None
        self._buffer = b""

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        """One request; a transport failure is an answer with status 0 (never raises)."""
        data = None if body is None else json.dumps(body).encode()
        sent = {
            "Host": f"{self.host}:{self.port}",
            "Accept-Encoding": "identity",
            **self.headers,
            **(headers or {}),
        }
        if data is not None:
            sent["Content-Type"] = "application/json"
            sent["Content-Length"] = str(len(data))
        elif method in ("POST", "PUT", "PATCH"):
            sent["Content-Length"] = "0"
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method != "GET" and "csrftoken" in self.cookies:
            sent["X-CSRFToken"] = self.cookies["csrftoken"]
        head = "".join(f"{k}: {v}\r\n" for k, v in sent.items())
        message = f"{method} {path} HTTP/1.1\r\n{head}\r\n".encode("latin-1") + (data or b"")
        started = time.perf_counter()
        for attempt in (1, 2):
            reused = self.sock is not None
            try:
                if self.sock is None:
                    self._connect()
                assert self.sock is not None
                self.sock.sendall(message)
                status, answer_headers, cookies, payload, keep = self._read_answer(method)
                break
            except (OSError, ValueError) as exc:
                self.close()  # the next request opens a new connection
                # A keep-alive connection the server closed as the request left (its
                # keepalive timeout): nothing was processed; a browser resends, so do we.
                if not (reused and attempt == 1 and isinstance(exc, STALE_CONNECTION)):
                    return Answer(0, b"", {}, time.perf_counter() - started)
        elapsed = time.perf_counter() - started
        if not keep:
            self.close()
        for header in cookies:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return Answer(status, payload, answer_headers, elapsed)

    def _connect(self) -> None:
        sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._buffer = b""

    def _receive(self) -> bytes:
        assert self.sock is not None
        chunk = self.sock.recv(65536)
        if not chunk:
            if not self._buffer:
                raise ClosedBeforeAnswer("the server closed the connection")
            raise ValueError("the connection closed in the middle of an answer")
        return chunk

    def _read_answer(self, method: str) -> tuple[int, dict[str, str], list[str], bytes, bool]:
        """Status, headers (the last of a repeated name), Set-Cookie values, body, and
        whether the connection stays open."""
        while (end := self._buffer.find(b"\r\n\r\n")) < 0:
            self._buffer += self._receive()
        lines = self._buffer[:end].decode("latin-1").split("\r\n")
        self._buffer = self._buffer[end + 4 :]
        version, status_text = lines[0].split(" ", 2)[:2]
        status = int(status_text)
        headers: dict[str, str] = {}
        lowered: dict[str, str] = {}
        cookies: list[str] = []
        for line in lines[1:]:
            name, _, value = line.partition(":")
            value = value.strip()
            headers[name] = value
            lowered[name.lower()] = value
            if name.lower() == "set-cookie":
                cookies.append(value)
        keep = version == "HTTP/1.1" and lowered.get("connection", "").lower() != "close"
        if status in NO_BODY or status < 200 or method == "HEAD":
            body = b""
        elif "content-length" in lowered:
            length = int(lowered["content-length"])
            while len(self._buffer) < length:
                self._buffer += self._receive()
            body, self._buffer = self._buffer[:length], self._buffer[length:]
        elif lowered.get("transfer-encoding", "").lower() == "chunked":
            body = self._read_chunked()
        else:  # delimited by the end of the connection
            parts = [self._buffer]
            assert self.sock is not None
            while chunk := self.sock.recv(65536):
                parts.append(chunk)
            body, self._buffer, keep = b"".join(parts), b"", False
        return status, headers, cookies, body, keep

    def _read_chunked(self) -> bytes:
        parts = []
        while True:
            while (end := self._buffer.find(b"\r\n")) < 0:
                self._buffer += self._receive()
            size = int(self._buffer[:end].split(b";")[0], 16)
            self._buffer = self._buffer[end + 2 :]
            if size == 0:  # the last chunk, then (no trailers) the final CRLF
                while (end := self._buffer.find(b"\r\n")) < 0:
                    self._buffer += self._receive()
                self._buffer = self._buffer[end + 2 :]
                return b"".join(parts)
            while len(self._buffer) < size + 2:
                self._buffer += self._receive()
            parts.append(self._buffer[:size])
            self._buffer = self._buffer[size + 2 :]

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock = None
        self._buffer = b""


def sign_in(client: Client, username: str, password: str) -> None:
    """The console's sign-in: the CSRF cookie, then the login (session cookie)."""
    csrf = client.request("GET", "/api/v1/auth/csrf/")
    assert csrf.status == 200, (csrf.status, csrf.body[:300])
    login = client.request(
        "POST", "/api/v1/auth/login/", {"username": username, "password": password}
    )
    assert login.status == 200, (login.status, login.body[:300])
    assert "sessionid" in client.cookies, client.cookies
