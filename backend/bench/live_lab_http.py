"""A keep-alive HTTP/1.1 client for the live-lab bench (stdlib ``http.client``).

One client is one browser tab: one connection, reused while the server keeps it open
(gthread workers do; sync workers close after every answer and the client reconnects,
as a browser would), with the cookies the server set (the researcher's sign-in).
"""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any

#: What a request on a keep-alive connection that the server has just closed runs into.
STALE_CONNECTION = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


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
        self.connection = http.client.HTTPConnection(host, port, timeout=timeout)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        """One request; a transport failure is an answer with status 0 (never raises)."""
        data = None if body is None else json.dumps(body).encode()
        sent = {**self.headers, **(headers or {})}
        if data is not None:
            sent["Content-Type"] = "application/json"
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method != "GET" and "csrftoken" in self.cookies:
            sent["X-CSRFToken"] = self.cookies["csrftoken"]
        started = time.perf_counter()
        for attempt in (1, 2):
            reused = self.connection.sock is not None
            try:
                self.connection.request(method, path, body=data, headers=sent)
                response = self.connection.getresponse()
                payload = response.read()
                break
            except (OSError, http.client.HTTPException) as exc:
                self.connection.close()  # the next request opens a new connection
                # A keep-alive connection the server closed as the request left (its
                # keepalive timeout): nothing was processed; a browser resends, so do we.
                if not (reused and attempt == 1 and isinstance(exc, STALE_CONNECTION)):
                    return Answer(0, b"", {}, time.perf_counter() - started)
        elapsed = time.perf_counter() - started
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return Answer(response.status, payload, dict(response.headers.items()), elapsed)

    def close(self) -> None:
        self.connection.close()


def sign_in(client: Client, username: str, password: str) -> None:
    """The console's sign-in: the CSRF cookie, then the login (session cookie)."""
    csrf = client.request("GET", "/api/v1/auth/csrf/")
    assert csrf.status == 200, (csrf.status, csrf.body[:300])
    login = client.request(
        "POST", "/api/v1/auth/login/", {"username": username, "password": password}
    )
    assert login.status == 200, (login.status, login.body[:300])
    assert "sessionid" in client.cookies, client.cookies
