"""Ports and readiness checks for ``scripts/demo.sh`` (standard library only).

    demo_net.py free HOST PORT              exit 0 if PORT can be bound on HOST, else 1
    demo_net.py pick HOST AFTER [EXCLUDED…] print a free port: AFTER+1 … AFTER+100, else any
    demo_net.py wait-agent URL PID LOG SECONDS
    demo_net.py wait-web URL PID SECONDS

A wait polls until a deadline (never a fixed sleep) and exits 1 with a one-line reason as
soon as the process PID has exited. ``wait-agent`` also requires the agent's own start-up
line in LOG (``{"listening": "HOST:PORT", "pid": PID}``, printed once it has bound the
port): a ``/healthz`` answer alone could come from another process on that port.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path


def port_free(host: str, port: int) -> bool:
    """Whether a listener could bind ``host:port`` now (SO_REUSEADDR, as the servers set it,
    so that connections in TIME_WAIT do not count as taken)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return False
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError:
            return False
    return True


def pick_port(host: str, after: int, excluded: set[int]) -> int:
    """The first free port above ``after`` (a human-friendly neighbour), else any free one."""
    for port in range(after + 1, min(after + 101, 65536)):
        if port not in excluded and port_free(host, port):
            return port
    while True:
        with socket.socket() as sock:
            sock.bind((host, 0))
            port = int(sock.getsockname()[1])
        if port not in excluded:
            return port


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie — exited, not yet reaped — does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        # Field 3, after the parenthesised command name, is the state.
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):  # no procfs (macOS): kill(0) is all we know
        return True


def answers(url: str) -> bool:
    """Whether GET ``url`` answers 200 now (one try, two seconds at most)."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:  # refused, reset, timed out, HTTP error
        return False


def started_line(log: Path, pid: int, port: int) -> bool:
    """Whether the agent's log holds its start-up line for this PID and port."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return False
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("pid") == pid
            and str(record.get("listening", "")).endswith(f":{port}")
        ):
            return True
    return False


def wait(what: str, pid: int, ready: Callable[[], bool], seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while True:
        if not alive(pid):
            print(f"{what} exited before it answered", file=sys.stderr)
            return 1
        if ready():
            return 0
        if time.monotonic() > deadline:
            print(f"{what} did not answer within {seconds:g} s", file=sys.stderr)
            return 1
        time.sleep(0.1)


def main(argv: list[str]) -> int:
    command, args = argv[0], argv[1:]
    if command == "free":
        return 0 if port_free(args[0], int(args[1])) else 1
    if command == "pick":
        print(pick_port(args[0], int(args[1]), {int(a) for a in args[2:]}))
        return 0
    if command == "wait-agent":
        url, pid, log, seconds = args[0], int(args[1]), Path(args[2]), float(args[3])
        port = urllib.parse.urlsplit(url).port or 80
        return wait(
            f"the netem agent (pid {pid}, {url})",
            pid,
            lambda: started_line(log, pid, port) and answers(f"{url}/healthz"),
            seconds,
        )
    if command == "wait-web":
        url, pid, seconds = args[0], int(args[1]), float(args[2])
        return wait(
            f"the web server (pid {pid}, {url})",
            pid,
            lambda: answers(f"{url}/healthz"),
            seconds,
        )
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
