#!/usr/bin/env bash
# `make demo`: embedded defaults (SQLite under var/, in-process tasks), the example study,
# a demo researcher account, and the server on http://127.0.0.1:8000.
set -euo pipefail
cd "$(dirname "$0")/.."
HOST=${QOELAB_DEMO_HOST:-127.0.0.1}
PORT=${QOELAB_DEMO_PORT:-8000}
manage() { .venv/bin/python backend/manage.py "$@"; }

manage preflight

# The station's netem agent, with the dry-run backend: it records the tc operations it would
# perform instead of touching the kernel (GET /v1/operations shows them).
AGENT_CONFIG=netem-agent/config.demo.toml
mkdir -p var
.venv/bin/netem-agent serve --config "$AGENT_CONFIG" >var/netem-agent-demo.log 2>&1 &
agent_pid=$!
trap 'kill $agent_pid 2>/dev/null; wait $agent_pid 2>/dev/null' EXIT INT TERM
manage migrate --noinput
login=$(manage ensure_demo_user)
manage load_study fixtures/studies/cloud-gaming-2014.json --owner researcher
# The demo's one station, bound to the dry-run agent started above.
manage ensure_station --name "Seat 1" --agent-url http://127.0.0.1:8787 \
  --token "$(sed -n 's/^token = "\(.*\)"$/\1/p' "$AGENT_CONFIG")"
cat <<MSG

  QoE Lab is starting on http://$HOST:$PORT/
  $login
  netem agent (dry-run): http://127.0.0.1:8787/healthz, log in var/netem-agent-demo.log
  (admin: http://$HOST:$PORT/admin/ · API docs: http://$HOST:$PORT/api/docs/ · health: http://$HOST:$PORT/healthz)
  Stop with Ctrl-C.

MSG
.venv/bin/python backend/manage.py runserver "$HOST:$PORT" --noreload
