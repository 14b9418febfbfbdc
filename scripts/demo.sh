#!/usr/bin/env bash
# `make demo`: embedded defaults (SQLite under var/, in-process tasks), the example study,
# a demo researcher account, and the server on http://127.0.0.1:8000.
set -euo pipefail
cd "$(dirname "$0")/.."
HOST=${QOELAB_DEMO_HOST:-127.0.0.1}
PORT=${QOELAB_DEMO_PORT:-8000}
manage() { .venv/bin/python backend/manage.py "$@"; }

manage preflight
manage migrate --noinput
manage load_study fixtures/studies/cloud-gaming-2014.json
login=$(manage ensure_demo_user)
cat <<MSG

  QoE Lab is starting on http://$HOST:$PORT/
  $login
  (admin: http://$HOST:$PORT/admin/ · API docs: http://$HOST:$PORT/api/docs/ · health: http://$HOST:$PORT/healthz)
  Stop with Ctrl-C.

MSG
exec .venv/bin/python backend/manage.py runserver "$HOST:$PORT" --noreload
