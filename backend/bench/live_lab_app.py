"""The app under load for the live-lab bench: gunicorn with the project's own config, on
loopback, against an own PostgreSQL database and Redis cache (qoelab_testkit.services),
with one dry-run netem agent per station (qoelab_testkit.agent), and a lab of live
sessions set up through the API as a researcher would.

One station per session: a station runs one session at a time (the
``one_active_session_per_station`` constraint) and its agent holds one installed state,
which the lease heartbeat verifies while a scenario plays.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from live_lab_http import Client, sign_in
from qoelab_testkit.agent import DryRunAgent, healthy
from qoelab_testkit.processes import Process
from qoelab_testkit.services import isolated_services, with_path
from qoelab_testkit.waiting import free_port, wait_for

RESEARCHER = ("bench-researcher", "bench-live-lab-password-1")
AGENT_TOKEN = "bench-live-lab-agent-token-0001"
SETUP_THREADS = 4


@dataclass
class LiveSession:
    id: int
    token: str
    position: int = 1


@dataclass
class App:
    host: str
    port: int
    database_url: str
    server: Process
    agent_pids: list[int] = field(default_factory=list)
    sessions: list[LiveSession] = field(default_factory=list)

    def client(self) -> Client:
        return Client(self.host, self.port)

    def researcher(self) -> Client:
        client = self.client()
        sign_in(client, *RESEARCHER)
        return client

    def server_pids(self) -> list[int]:
        """gunicorn's master and its workers (the CPU the app used)."""
        master = self.server.pid
        pids = [master]
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == master:
                    pids.append(int(entry.name))
        return pids


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of the processes (``/proc/<pid>/stat``, fields 14 and 15)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / tick


def _manage(root: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, str(root / "backend" / "manage.py"), *args],
        env=env,
        check=True,
        timeout=300,
        capture_output=True,
    )


@contextmanager
def serve(root: Path, work: Path, *, stations: int, gunicorn_env: dict[str, str]) -> Iterator[App]:
    """The app of checkout ``root`` (its backend code and deploy/gunicorn.conf.py) with
    ``stations`` dry-run agents; everything is stopped and the database dropped afterwards."""
    with ExitStack() as stack:
        services = stack.enter_context(isolated_services("the live-lab bench", "qoelab_bench_live"))
        agents = [DryRunAgent(work / f"agent{i:02d}", token=AGENT_TOKEN) for i in range(stations)]
        for agent in agents:
            stack.callback(agent.stop)
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda agent: agent.start(), agents))
        port = free_port()
        env = {
            **{
                k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "CELERY_"))
            },
            # The checkout under test, not the venv's editable install.
            "PYTHONPATH": f"{root / 'backend' / 'src'}:{root / 'analysis' / 'src'}",
            "DATABASE_URL": services.database_url,
            # The cache shared by the workers (sign-in limits); the claimed results database:
            # no Celery runs here (tasks run in-process), so nothing else writes it.
            "QOELAB_CACHE_URL": with_path(services.broker_url, f"/{services.redis_dbs[1]}"),
            "QOELAB_DATA_DIR": str(work / "data"),
            # As deployed: no per-query bookkeeping of DEBUG, no debug pages.
            "DJANGO_DEBUG": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "GUNICORN_BIND": f"127.0.0.1:{port}",
            **gunicorn_env,
        }
        _manage(root, env, "migrate", "--noinput", "-v", "0")
        _manage(
            root, env, "ensure_demo_user", "--username", RESEARCHER[0], "--password", RESEARCHER[1]
        )
        study_file = root / "fixtures" / "studies" / "cloud-gaming-2014.json"
        _manage(root, env, "load_study", str(study_file), "--owner", RESEARCHER[0])
        server = Process(
            "gunicorn",
            [
                sys.executable,
                "-m",
                "gunicorn",
                "--config",
                str(root / "deploy" / "gunicorn.conf.py"),
                "qoelab.wsgi:application",
            ],
            env,
            work,
            cwd=root,
        ).start()
        stack.callback(server.terminate, 30)
        url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            server.check_alive()
            return healthy(url)

        wait_for(f"gunicorn at {url}", up, timeout=120, interval=0.2)
        app = App("127.0.0.1", port, services.database_url, server, [a.process.pid for a in agents])
        app.sessions = _live_sessions(app, [agent.url for agent in agents])
        yield app


def _check(answer: Any, *expected: int) -> Any:
    assert answer.status in expected, (answer.status, answer.body[:500])
    return answer.json() if answer.body else None


def _live_sessions(
    app: App, agent_urls: list[str], seconds_per_scenario: int = 5
) -> list[LiveSession]:
    """One playing session per station: station, participant, session, start, the
    participant's questionnaire, the researcher ends free play (the first scenario is
    applied). Scenarios last ``seconds_per_scenario`` (the study's minimum) so that ratings
    fall due during the run."""
    researcher = app.researcher()
    studies = _check(researcher.request("GET", "/api/v1/studies/"), 200)
    study = studies[0] if isinstance(studies, list) else studies["results"][0]
    _check(
        researcher.request(
            "PATCH",
            f"/api/v1/studies/{study['id']}/",
            {"seconds_per_scenario": seconds_per_scenario},
        ),
        200,
    )
    detail = _check(researcher.request("GET", f"/api/v1/studies/{study['id']}/"), 200)
    games = [game["id"] for game in detail["games"]]

    # A few signed-in researcher tabs, each used by one setup thread at a time.
    tabs: queue.Queue[Client] = queue.Queue()
    tabs.put(researcher)
    for _ in range(SETUP_THREADS - 1):
        tabs.put(app.researcher())

    def one(i: int) -> LiveSession:
        client = tabs.get()
        try:
            return _one_session(app, client, i, study["id"], games, agent_urls[i])
        finally:
            tabs.put(client)

    with ThreadPoolExecutor(SETUP_THREADS) as pool:
        sessions = list(pool.map(one, range(len(agent_urls))))
    while not tabs.empty():
        tabs.get().close()
    return sessions


def _one_session(
    app: App, client: Client, i: int, study: int, games: list[int], agent_url: str
) -> LiveSession:
    station = _check(
        client.request(
            "POST",
            "/api/v1/stations/",
            {"name": f"Bench seat {i + 1}", "agent_url": agent_url, "agent_token": AGENT_TOKEN},
        ),
        201,
    )
    person = _check(
        client.request(
            "POST", "/api/v1/participants/", {"study": study, "code": f"B{i + 1:03d}", "age": 30}
        ),
        201,
    )
    session = _check(
        client.request(
            "POST",
            "/api/v1/sessions/",
            {"participant": person["id"], "game": games[i % len(games)], "station": station["id"]},
        ),
        201,
    )
    sid = session["id"]
    _check(client.request("POST", f"/api/v1/sessions/{sid}/start/"), 200)
    screen = app.client()
    screen.headers["X-Participant-Token"] = session["participant_token"]
    _check(
        screen.request(
            "POST",
            f"/api/v1/participant/sessions/{sid}/questionnaire/",
            {"consent": True, "skill": "medium", "genre_preference": True},
        ),
        200,
    )
    console = _check(client.request("POST", f"/api/v1/sessions/{sid}/advance/"), 200)
    assert console["state"] == "playing", console["state"]
    screen.close()
    return LiveSession(sid, session["participant_token"])
