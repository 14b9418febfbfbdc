"""Start QoE Lab with the example study on a free port, for the browser tests and
`make screenshots`.

Where DATABASE_URL is set (CI sets it, with CELERY_BROKER_URL), the app runs on its own
PostgreSQL database and its own pair of Redis databases, with a Celery worker as a
separate process, as in production; in strict mode (QOELAB_STRICT=1) that is required.
Otherwise it runs as `make demo` does: an SQLite file and in-process tasks.

Besides the web server it starts a netem agent in dry-run mode (it records the operations
it would perform and changes no interface) on another free port, registers it as the
station "Seat 1" (owned by the demo researcher, researcher / qoelab-demo, and shared with
the lab's other researchers).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from qoelab_testkit.agent import DryRunAgent, healthy
from qoelab_testkit.celery_worker import worker_argv, worker_ready
from qoelab_testkit.prerequisites import require, strict
from qoelab_testkit.processes import Process
from qoelab_testkit.services import isolated_services
from qoelab_testkit.waiting import free_port, wait_for

REPO = Path(__file__).resolve().parents[1]
MANAGE = REPO / "backend" / "manage.py"
EXAMPLE_STUDY = REPO / "fixtures" / "studies" / "cloud-gaming-2014.json"
CHROMIUM = Path(os.environ.get("QOELAB_CHROMIUM", "/usr/bin/chromium"))
# Without these Chromium keeps dialling Google services, which a closed lab network refuses.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


RESEARCHER = ("researcher", "qoelab-demo")
STATION_NAME = "Seat 1"
AGENT_TOKEN = "e2e-dry-run-agent-token-0001"
RATINGS_FIXTURE = REPO / "fixtures" / "synthetic" / "dissertation_shape" / "ratings.csv"
#: The synthetic data set names its games by genre; the example study by title.
FIXTURE_GAMES = {
    "racing": "Gran Turismo HD Concept",
    "rpg": "Final Fantasy XIII",
    "soccer": "Pro Evolution Soccer",
}


@dataclass(frozen=True)
class LiveApp:
    url: str
    data_dir: Path
    env: dict[str, str]
    agent_url: str = ""

    def manage(self, *args: str) -> str:
        """Run a management command against this app's database; return its stdout."""
        result = subprocess.run(
            [sys.executable, str(MANAGE), *args],
            env=self.env,
            check=True,
            timeout=120,
            capture_output=True,
            text=True,
        )
        return result.stdout


def fixture_ratings_csv() -> str:
    """The synthetic ratings (58 raters, 79 sessions) with the example study's game names."""
    lines = RATINGS_FIXTURE.read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    game = header.index("game")
    out = [lines[0]]
    for line in lines[1:]:
        cells = line.split(",")
        cells[game] = FIXTURE_GAMES[cells[game]]
        out.append(",".join(cells))
    return "\n".join(out) + "\n"


@contextmanager
def backing_services() -> Iterator[dict[str, str]]:
    """The app's database and broker settings: an own PostgreSQL database and Redis pair
    where DATABASE_URL is set; none (SQLite, in-process tasks) otherwise."""
    if not os.environ.get("DATABASE_URL", "").strip():
        require(
            not strict(),
            "the browser suite runs against PostgreSQL and Redis in strict mode: "
            "set DATABASE_URL and CELERY_BROKER_URL",
        )
        yield {}
        return
    with isolated_services("the browser suite", prefix="qoelab_e2e") as services:
        yield {
            "DATABASE_URL": services.database_url,
            "CELERY_BROKER_URL": services.broker_url,
            "CELERY_RESULT_BACKEND": services.result_url,
        }


@contextmanager
def celery_worker(env: dict[str, str], log_dir: Path) -> Iterator[Process | None]:
    """A Celery worker as the Procfile starts it, when a broker is configured."""
    if not env.get("CELERY_BROKER_URL"):
        yield None
        return
    worker = Process(
        "worker", worker_argv("e2e"), {**env, "PYTHONUNBUFFERED": "1"}, log_dir, cwd=REPO
    ).start()
    try:
        wait_for("the Celery worker", lambda: worker_ready(worker), timeout=90, interval=0.2)
        yield worker
    finally:
        worker.terminate(timeout=20)


@contextmanager
def serve_app(data_dir: Path) -> Iterator[LiveApp]:
    """Migrate a fresh database, load the example study, start a dry-run agent with its
    station, the demo researcher account and (with a broker) a Celery worker; serve it all."""
    with backing_services() as backing, _serve(data_dir, backing) as app:
        yield app


@contextmanager
def _serve(data_dir: Path, backing: dict[str, str]) -> Iterator[LiveApp]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "CELERY_"))},
        **backing,
        "QOELAB_DATA_DIR": str(data_dir),
        # /healthz shows its details (database, broker, worker) to this token only.
        "QOELAB_HEALTH_TOKEN": secrets.token_urlsafe(24),
    }
    port = free_port()
    agent = DryRunAgent(
        data_dir / "agent",
        token=AGENT_TOKEN,
        client_iface="lab-client0",
        server_iface="lab-server0",
    )
    with agent:
        agent_url = agent.url
        app = LiveApp(
            url=f"http://127.0.0.1:{port}", data_dir=data_dir, env=env, agent_url=agent_url
        )
        app.manage("migrate", "--noinput", "-v", "0")
        app.manage("load_study", str(EXAMPLE_STUDY))
        app.manage("ensure_demo_user", "--username", RESEARCHER[0], "--password", RESEARCHER[1])
        app.manage(
            "ensure_station",
            "--name",
            STATION_NAME,
            "--agent-url",
            agent_url,
            f"--token={AGENT_TOKEN}",
            "--owner",
            RESEARCHER[0],
            "--shared",
            "--topology",
            "dry-run agent (records operations, changes no interface)",
            "--check",
        )
        with celery_worker(env, data_dir):
            server = Process(
                "server",
                [sys.executable, str(MANAGE), "runserver", f"127.0.0.1:{port}", "--noreload"],
                env,
                data_dir,
            ).start()
            try:

                def up() -> bool:
                    server.check_alive()
                    return healthy(app.url)

                wait_for(f"the web server at {app.url}", up, timeout=60, interval=0.2)
                yield app
            finally:
                server.terminate(timeout=20)
