"""The deployment files: offline linters (scripts/lint-deploy.sh) and the promises the
docs make about them (docs/deploy.md). No Docker engine is needed.

Run: .venv/bin/pytest deploy/tests   (from the repository root)
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
COMPOSE_FILE = REPO / "docker-compose.yml"


def run(*args: str | Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=REPO, capture_output=True, text=True, timeout=120, **kwargs
    )


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def test_lint_deploy_is_clean() -> None:
    result = run("bash", "scripts/lint-deploy.sh")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "lint-deploy: all clean" in result.stdout


def test_structural_unit_check_is_clean() -> None:
    """The fallback for machines without systemd-analyze passes on the units too."""
    result = run("bash", "-c", "LINT_DEPLOY_STRUCTURAL=1 scripts/lint-deploy.sh")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_linters_catch_mistakes(tmp_path: Path) -> None:
    """Guard against a linter that silently checks nothing."""
    bad_dockerfile = tmp_path / "Dockerfile"
    bad_dockerfile.write_text("FROM python\nRUN apt-get install curl\nUSER root\n")
    hadolint = run(BIN / "hadolint", "--no-color", bad_dockerfile)
    assert hadolint.returncode != 0
    assert "DL3006" in hadolint.stdout  # untagged image

    bad_compose = tmp_path / "docker-compose.yml"
    bad_compose.write_text(
        COMPOSE_FILE.read_text().replace("network_mode: host", "netwrok_mode: host")
    )
    schema = run(BIN / "check-jsonschema", "--builtin-schema", "vendor.compose-spec", bad_compose)
    assert schema.returncode != 0
    assert "netwrok_mode" in schema.stdout


def test_every_long_running_service_has_a_health_check(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        if name == "migrate":  # one-shot
            assert service["restart"] == "no"
            continue
        if name == "beat":  # no endpoint to probe; restarted when it dies
            assert service["healthcheck"] == {"disable": True}
            assert service["restart"] == "unless-stopped"
            continue
        assert "test" in service["healthcheck"], name
        assert service["restart"] == "unless-stopped", name


def test_web_health_check_uses_healthz() -> None:
    assert "/healthz" in (REPO / "docker" / "healthcheck.py").read_text()


def test_netem_agent_runs_only_on_the_emulator_box(compose: dict[str, Any]) -> None:
    agent = compose["services"]["netem-agent"]
    assert agent["profiles"] == ["emulator"]
    assert agent["network_mode"] == "host"
    assert agent["cap_add"] == ["NET_ADMIN"]
    assert agent["cap_drop"] == ["ALL"]
    assert any(v.endswith(":/etc/netem-agent/agent.toml:ro") for v in agent["volumes"])
    for name, service in compose["services"].items():
        if name != "netem-agent":
            assert "profiles" not in service, name  # `docker compose up` starts them


def test_state_lives_in_named_volumes(compose: dict[str, Any]) -> None:
    declared = set(compose["volumes"])
    used = {
        volume.split(":", 1)[0]
        for service in compose["services"].values()
        for volume in service.get("volumes", [])
        if not volume.startswith(("./", "/", "$"))
    }
    assert used == declared == {"postgres-data", "redis-data", "qoelab-data", "netem-agent-state"}


def test_no_secret_is_written_in_the_compose_file(compose: dict[str, Any]) -> None:
    secretish = re.compile(r"PASSWORD|SECRET|TOKEN|_URL|_BACKEND$")
    for name, service in compose["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if secretish.search(key):
                assert "${" in str(value), f"{name}.{key} must come from .env"


def test_every_compose_variable_is_documented_in_env_example() -> None:
    used = set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)", COMPOSE_FILE.read_text()))
    example = (REPO / ".env.example").read_text()
    documented = set(re.findall(r"^#?\s*([A-Z_][A-Z0-9_]*)=", example, re.M))
    assert used - documented == set()


def _processes(name: str) -> dict[str, str]:
    return dict(
        line.split(":", 1)
        for line in (REPO / name).read_text().splitlines()
        if line and not line.startswith("#")
    )


def test_procfile_names_web_worker_and_beat_and_no_dry_run_agent() -> None:
    """Issue 13: the default Procfile starts no dry-run agent (it applies nothing to a
    kernel); the rehearsal Procfile is the explicit opt-in, otherwise the same processes."""
    processes = _processes("Procfile")
    assert "gunicorn --config deploy/gunicorn.conf.py qoelab.wsgi:application" in processes["web"]
    assert "celery --app qoelab worker" in processes["worker"]
    assert "celery --app qoelab beat" in processes["beat"]
    assert set(processes) == {"web", "worker", "worker-heavy", "beat"}
    assert not any("dry-run" in command for command in processes.values())
    rehearsal = _processes("Procfile.rehearsal")
    assert rehearsal["agent"].strip() == "deploy/agent-dry-run.sh"
    assert {k: v for k, v in rehearsal.items() if k != "agent"} == processes
    for command in rehearsal.values():
        executable = command.split()[0]
        assert (REPO / executable).exists() or executable.startswith(".venv/"), executable


def test_one_worker_per_queue(compose: dict[str, Any]) -> None:
    """Issue 34: imports and analyses ("heavy") never hold the worker of the heartbeats."""
    services = compose["services"]
    queues = {
        name: services[name]["environment"]["CELERY_QUEUES"]
        for name in services
        if services[name].get("command") == ["worker"]
    }
    assert queues == {"worker": "celery", "worker-heavy": "heavy"}
    processes = _processes("Procfile")
    assert "--queues celery " in processes["worker"]
    assert "--queues heavy " in processes["worker-heavy"]
    unit = (REPO / "deploy/systemd/qoelab-worker@.service").read_text()
    assert '--queues "%i"' in unit and "qoelab-worker@celery qoelab-worker@heavy" in unit
    entrypoint = (REPO / "docker/backend-entrypoint.sh").read_text()
    assert '--queues "${CELERY_QUEUES:-celery,heavy}"' in entrypoint


def test_units_and_images_use_the_shared_gunicorn_config() -> None:
    assert "deploy/gunicorn.conf.py" in (REPO / "deploy/systemd/qoelab-web.service").read_text()
    assert "deploy/gunicorn.conf.py" in (REPO / "docker/backend.Dockerfile").read_text()
    assert "/app/deploy/gunicorn.conf.py" in (REPO / "docker/backend-entrypoint.sh").read_text()


def test_backend_image_runs_as_non_root() -> None:
    dockerfile = (REPO / "docker/backend.Dockerfile").read_text()
    users = re.findall(r"^USER (\S+)", dockerfile, re.M)
    assert users and users[-1].split(":")[0] not in {"root", "0"}
    assert dockerfile.count("FROM ") >= 3  # node build, python build, runtime


def test_steer_unit_checks_the_config_it_runs_and_holds_no_capability() -> None:
    """Issue 33: qoe-steer's unit checks the very config it runs, never restarts a refused
    one (exit 2), logs events in its StateDirectory and keeps no capability."""
    keys: dict[str, str] = {}
    for line in (REPO / "deploy/systemd/qoe-steer.service").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            keys[key] = value
    pre, start = keys["ExecStartPre"].split(), keys["ExecStart"].split()
    assert pre[1:] == ["check-config", start[start.index("--config") + 1]], (pre, start)
    assert start[1] == "run" and keys["RestartPreventExitStatus"] == "2"
    events = start[start.index("--events") + 1]
    assert events.startswith(f"/var/lib/{keys['StateDirectory']}/"), events
    assert keys["CapabilityBoundingSet"] == "" and keys["NoNewPrivileges"] == "yes"
    assert keys["ProtectSystem"] == "strict"
