#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install the locked workspace into it with uv.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
UV_VERSION=0.13.8

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "error: $PYTHON not found; QoE Lab needs Python >= 3.11 (Debian: apt-get install python3 python3-venv)" >&2
  exit 2
fi
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "error: $("$PYTHON" --version 2>&1) is too old; QoE Lab needs Python >= 3.11 (set PYTHON=python3.11)" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv || {
    echo "error: could not create .venv (Debian: apt-get install python3-venv)" >&2
    exit 2
  }
fi
if [ "$(.venv/bin/uv --version 2>/dev/null)" != "uv $UV_VERSION" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION"
fi
# --frozen: install exactly what uv.lock says; never re-resolve on a user's machine.
# --compile-bytecode: write the installed packages' .pyc files now. Where
# PYTHONDONTWRITEBYTECODE is set (containers, CI) Python never writes them itself, and
# every process would compile pandas, SciPy and scikit-learn from source again.
UV_PYTHON_DOWNLOADS=never .venv/bin/uv sync --frozen --compile-bytecode --quiet
# The workspace's own packages are installed editable (their sources stay in the tree,
# outside site-packages): compile them too. A .pyc that an edit makes stale is ignored.
.venv/bin/python -m compileall -q -j 0 \
  backend/src analysis/src netem-agent/src netem-profile/src steer/src testkit/src >/dev/null
