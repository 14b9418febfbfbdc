"""The whole chain, run as root *inside* the user-mode kernel (issue 13, "the whole chain
in one test"): backend → real netem agent (netlink) → kernel → probe packets.

``python whole_chain_guest.py --spec SPEC.json --out RESULTS.json`` builds the lab of
:mod:`netem_agent.testing.lab` (client, router and server namespaces; management veth
m0 10.9.0.1 ↔ m1 10.9.0.2), starts ``netem-agent serve`` (netlink backend) in the router
namespace on 10.9.0.2, and the Django backend (``manage.py runserver``, SQLite, in-process
tasks) in the root namespace. Then, through the backend's HTTP API only, a researcher
imports the example study, registers the station, creates a participant and a session;
the participant answers the questionnaire, the researcher ends free play, and for every
scenario, while the session is in state ``playing``, probe packets cross client → server
and server → client. The researcher ends play, the participant rates; finally the
ratings, the session and the tidy CSV export are read back over the API.

Raw measurements and the API's answers only go to RESULTS.json; the host-side pytest
(test_whole_chain.py) judges them. The database was migrated on the host beforehand
(``spec["database"]``): migrations inside the user-mode kernel take minutes on a busy
host and prove nothing about the chain.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import traceback
import uuid
from pathlib import Path
from typing import Any

import requests
from netem_agent.testing import lab
from netem_agent.testing.lab import CLIENT, CLIENT_IP, MGMT_IP, ROUTER, SERVER, SERVER_IP, TOKEN
from netem_agent.testing.lab_agent import AgentProcess, write_config
from netem_agent.testing.probes import Stream, measure
from qoelab_testkit.waiting import wait_for

BRIDGE = {"mode": "bridge", "client_iface": "rc", "server_iface": "rs"}
AGENT_PORT = 8787
WEB = "127.0.0.1:8000"
DIRECTIONS = ("upstream", "downstream")


class ApiError(RuntimeError):
    pass


class Api:
    """HTTP to the backend as the browser app does: a session cookie and the CSRF header
    (researcher), or the participant token header (participant screen)."""

    def __init__(self, base: str, **headers: str) -> None:
        self.base = base
        self.http = requests.Session()
        self.http.headers.update(headers)

    def call(
        self, method: str, path: str, expect: tuple[int, ...] = (200, 201), **kwargs: Any
    ) -> requests.Response:
        headers = {}
        csrf = self.http.cookies.get("csrftoken")
        if csrf and method not in {"GET", "HEAD"}:
            headers["X-CSRFToken"] = csrf
        response = self.http.request(
            method, self.base + path, headers=headers, timeout=120, **kwargs
        )
        if response.status_code not in expect:
            raise ApiError(f"{method} {path}: {response.status_code} {response.text[:2000]}")
        return response

    def get(self, path: str) -> Any:
        return self.call("GET", path, (200,)).json()

    def post(self, path: str, body: Any = None, expect: tuple[int, ...] = (200, 201)) -> Any:
        response = self.call("POST", path, expect, json=body if body is not None else {})
        return response.json() if response.content else None

    def log_in(self, username: str, password: str) -> None:
        self.get("/api/v1/auth/csrf/")
        self.post("/api/v1/auth/login/", {"username": username, "password": password}, (200,))


def mem_available_kib() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return -1


def tc_json(dev: str) -> Any:
    """``tc -j qdisc show`` of a router device, options included."""
    return json.loads(
        lab.sh("ip", "netns", "exec", ROUTER, "tc", "-j", "qdisc", "show", "dev", dev).stdout
    )


def playing(console: dict[str, Any], position: int) -> dict[str, Any] | None:
    """The console's session if it plays ``position`` (the scenario is applied)."""
    if console["state"] == "playing" and console["position"] == position:
        return console
    return None


class Chain:
    def __init__(self, spec: dict[str, Any], out: Path, work: Path) -> None:
        self.spec = spec
        self.out = out
        self.work = work
        self.results: dict[str, Any] = {"started": time.time(), "steps": {}}
        self.port = 20000

    def save(self) -> None:
        tmp = self.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.results, indent=1, default=str))
        tmp.replace(self.out)

    def step(self, name: str) -> None:
        self.results["steps"][name] = round(time.time() - self.results["started"], 2)
        self.results.setdefault("mem_available_kib", {})[name] = mem_available_kib()
        print(f"== {name}", flush=True)
        self.save()

    # --- the processes ----------------------------------------------------------------------
    def start_agent(self) -> AgentProcess:
        config = write_config(
            self.work / "station.toml", topology=dict(BRIDGE), port=AGENT_PORT, listen=MGMT_IP
        )
        agent = AgentProcess(config, port=AGENT_PORT, log=self.out.parent / "chain-agent.log")
        agent.start(timeout=120)
        return agent

    def start_backend(self) -> subprocess.Popen[bytes]:
        data = self.work / "data"
        data.mkdir(parents=True, exist_ok=True)
        # SQLite on the guest's tmpfs: the host filesystem (hostfs) is no place for a
        # database's locks. The file was migrated on the host.
        shutil.copyfile(self.spec["database"], data / "qoelab.sqlite3")
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("DATABASE_URL", "CELERY_", "QOELAB_", "DJANGO_"))
        }
        env["QOELAB_DATA_DIR"] = str(data)  # SQLite; no broker: tasks run in-process
        log = open(self.out.parent / "chain-backend.log", "ab")  # noqa: SIM115 - the process's
        manage = Path(self.spec["repo"]) / "backend" / "manage.py"
        web = subprocess.Popen(
            [sys.executable, str(manage), "runserver", WEB, "--noreload"],
            stdout=log,
            stderr=log,
            env=env,
        )

        def up() -> bool:
            if web.poll() is not None:
                raise RuntimeError(f"the backend exited with {web.returncode}")
            try:
                return requests.get(f"http://{WEB}/healthz", timeout=5).status_code == 200
            except requests.RequestException:
                return False

        wait_for("the backend's /healthz", up, timeout=300, interval=0.5)
        return web

    def streams(self) -> tuple[Stream, Stream]:
        self.port += 2
        return (
            Stream("upstream", CLIENT, SERVER, SERVER_IP, self.port),
            Stream("downstream", SERVER, CLIENT, CLIENT_IP, self.port + 1),
        )

    # --- the session ------------------------------------------------------------------------
    def run(self) -> None:
        res = self.results
        res["kernel"] = os.uname().release
        lab.setup_lab()
        self.step("lab")
        agent = self.start_agent()
        self.step("agent")
        web = self.start_backend()
        self.step("backend")
        try:
            self.session(agent)
        finally:
            try:  # what the agent holds once the session is over (it must be nothing)
                res["agent_profile_after"] = agent.request("GET", "/v1/profile")[1]
            except OSError as exc:
                res["agent_profile_after"] = {"error": repr(exc)}
            res["agent_stop_code"] = agent.stop()
            web.terminate()
            res["backend_stop_code"] = web.wait(timeout=60)
            res["finished"] = time.time()
            self.save()

    def session(self, agent: AgentProcess) -> None:
        res = self.results
        base = f"http://{WEB}"
        researcher = Api(base)
        researcher.log_in(*self.spec["researcher"])
        document = json.loads(Path(self.spec["study"]).read_text(encoding="utf-8"))
        study = researcher.post("/api/v1/studies/import-design/", document, (201,))
        res["study"] = {"id": study["id"], "scenarios": study["scenarios"]}
        station = researcher.post(
            "/api/v1/stations/",
            {
                "name": "UML seat",
                "agent_url": f"http://{MGMT_IP}:{AGENT_PORT}",
                "agent_token": TOKEN,
                "topology": "user-mode kernel lab: router namespace, bridge rc/rs",
            },
            (201,),
        )
        res["station_check"] = researcher.post(f"/api/v1/stations/{station['id']}/check/")
        self.step("study and station")

        person = researcher.post(
            "/api/v1/participants/", {"study": study["id"], "code": "UML-1", "age": 30}, (201,)
        )
        game = next(g for g in study["games"] if g["pace"] == "fast")
        session = researcher.post(
            "/api/v1/sessions/",
            {"participant": person["id"], "game": game["id"], "station": station["id"]},
            (201,),
        )
        sid = session["id"]
        res["session_id"] = sid
        screen = Api(base, **{"X-Participant-Token": session["participant_token"]})
        view = f"/api/v1/participant/sessions/{sid}/"
        console = f"/api/v1/sessions/{sid}/"
        researcher.post(f"{console}start/")
        screen.post(
            f"{view}questionnaire/", {"consent": True, "skill": "medium", "genre_preference": True}
        )
        res["after_questionnaire"] = screen.get(view)["step"]
        researcher.post(f"{console}advance/")  # the researcher ends free play
        self.step("questionnaire and free play")

        res["scenarios"] = []
        probes = self.spec["probes"]
        for position in range(1, session["scenario_count"] + 1):
            now = wait_for(
                f"position {position} in state playing",
                lambda p=position: playing(researcher.get(console), p),
                timeout=120,
                interval=0.2,
            )
            entry: dict[str, Any] = {
                "position": position,
                "code": now["current_scenario"]["code"],
                "console_applied": now["applied_profile"],
                "screen_step": screen.get(view)["step"],
                # iproute2's view of the router's qdiscs: an observer independent of the agent
                "tc": {dev: tc_json(dev) for dev in ("rc", "rs")},
            }
            res["scenarios"].append(entry)
            max_delay = max(now["applied_profile"][d]["delay_ms"] for d in DIRECTIONS) / 1000
            up, down = self.streams()
            measure([up, down], probes["count"], probes["interval_s"], max_delay)
            entry["upstream"], entry["downstream"] = up.summary(), down.summary()
            up.close()
            down.close()
            after = researcher.get(console)
            entry["after"] = {
                "state": after["state"],
                "position": after["position"],
                "applied": after["applied_profile"],
            }
            researcher.post(f"{console}advance/")  # the researcher ends play
            delay = sum(now["applied_profile"][d]["delay_ms"] for d in DIRECTIONS)
            score = max(1, min(5, round(5 - delay / 200)))
            rating = {"score": score, "position": position, "idempotency_key": uuid.uuid4().hex}
            screen.post(f"{view}rate/", rating, (201,))
            print(
                entry["code"],
                json.dumps(
                    {d: {k: entry[d][k] for k in ("median_ms", "lost")} for d in DIRECTIONS}
                ),
                flush=True,
            )
            self.step(f"scenario {position} ({entry['code']})")

        answers = {"answers": {"willing_to_pay": "yes", "attitude": "neutral"}}
        res["final_step"] = screen.post(f"{view}post-questions/", answers)["step"]
        res["session"] = researcher.get(console)
        res["ratings"] = researcher.get(f"/api/v1/ratings/?session={sid}")
        res["export_csv"] = researcher.call(
            "GET", f"/api/v1/studies/{study['id']}/export/csv/"
        ).text
        self.step("read back")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    spec = json.loads(Path(args.spec).read_text())
    work = Path("/run/qoelab-chain")
    work.mkdir(parents=True, exist_ok=True)
    chain = Chain(spec, Path(args.out), work)
    try:
        chain.run()
    except Exception:
        chain.results["error"] = traceback.format_exc()
        print(chain.results["error"], flush=True)
        chain.save()
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
