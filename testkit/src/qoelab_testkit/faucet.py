"""The Faucet tool venv (var/tools/faucet-venv): Faucet and os-ken from the pinned, hashed
requirements in analysis/policy-tools/faucet/, built once and shared by every suite."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from qoelab_testkit.prerequisites import require

REPO = Path(__file__).resolve().parents[3]
FAUCET_REQUIREMENTS = REPO / "analysis" / "policy-tools" / "faucet" / "requirements.txt"
FAUCET_VENV = REPO / "var" / "tools" / "faucet-venv"


def _build_faucet_venv() -> str | None:
    """Create var/tools/faucet-venv from the pinned requirements; None or an error."""
    uv = REPO / ".venv" / "bin" / "uv"
    uv_path = str(uv) if uv.exists() else shutil.which("uv")
    if uv_path is None:
        return "uv not found (run `make python` first)"
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    shutil.rmtree(FAUCET_VENV, ignore_errors=True)
    steps = [
        [uv_path, "venv", "--quiet", "--python", sys.executable, str(FAUCET_VENV)],
        [
            uv_path, "pip", "sync", "--quiet", "--require-hashes",
            "--python", str(FAUCET_VENV / "bin" / "python"), str(FAUCET_REQUIREMENTS),
        ],
    ]  # fmt: skip
    for argv in steps:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900)
        if done.returncode != 0:
            tail = " ".join(done.stderr.split())[-400:]
            return (
                f"building the Faucet tool environment failed ({tail}); it needs PyPI access "
                "and a C compiler with Python headers for pytricia (Debian: gcc, python3-dev)"
            )
    return None


def faucet_venv() -> Path:
    """var/tools/faucet-venv with Faucet (and os-ken) installed; skip/fail if it cannot be.

    Rebuilt when requirements.txt changes (a stamp holds its SHA-256); a file lock keeps
    parallel test sessions from building it twice.
    """
    digest = hashlib.sha256(FAUCET_REQUIREMENTS.read_bytes()).hexdigest()
    stamp = FAUCET_VENV / ".requirements.sha256"
    FAUCET_VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(FAUCET_VENV.parent / "faucet-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ready = (FAUCET_VENV / "bin" / "check_faucet_config").exists()
        if not (ready and stamp.exists() and stamp.read_text().strip() == digest):
            error = _build_faucet_venv()
            require(error is None, error or "")
            stamp.write_text(digest + "\n")
    return FAUCET_VENV
