#!/usr/bin/env bash
# `make demo`: embedded defaults (SQLite, in-process tasks), the example study, a demo
# researcher account, a dry-run netem agent bound to the station "Seat 1", and the server.
# Run again, it keeps what is there: a study edit, the researcher's password and the
# station's settings (only a station still bound to the demo agent's previous address
# follows the agent to its new port). `scripts/demo.sh --reset` (`make demo-reset`) deletes
# the demo state for a fresh start.
#
#   QOELAB_DEMO_PORT        web port (default 8000)
#   QOELAB_DEMO_AGENT_PORT  the dry-run agent's port on 127.0.0.1 (default 8787)
#   QOELAB_DEMO_HOST        the web server's address (127.0.0.1)
#   QOELAB_DEMO_VAR         state directory: SQLite database, agent state, logs (var)
#   QOELAB_DEMO_WAIT        seconds to wait for the agent and the web server to answer (60)
# A default port that is taken is replaced by a free one (and the demo says so); a port
# set explicitly that is taken stops the demo with a one-line message.
set -euo pipefail
cd "$(dirname "$0")/.."
VAR=${QOELAB_DEMO_VAR:-var}
HOST=${QOELAB_DEMO_HOST:-127.0.0.1}
WAIT=${QOELAB_DEMO_WAIT:-60}
AGENT_HOST=127.0.0.1
# Loopback only, dry-run only: a fixed token is harmless and survives a `make demo-reset`.
AGENT_TOKEN=demo-token-not-secret-0001
AGENT_DIR=$VAR/netem-agent-demo
AGENT_LOG=$VAR/netem-agent-demo.log
AGENT_URL_FILE=$VAR/demo-agent-url # where the demo agent answered last time
PID_FILE=$VAR/demo.pid
# The agent's address before the demo remembered it (the demo used a fixed port then).
LEGACY_AGENT_URL=http://127.0.0.1:8787
export QOELAB_DATA_DIR=$VAR
py=.venv/bin/python
manage() { "$py" backend/manage.py "$@"; }
net() { "$py" scripts/demo_net.py "$@"; }
die() {
  echo "demo: $*" >&2
  exit 1
}

running_demo() { # prints the PID of a demo that serves this state directory, if one runs
  local pid
  pid=$(cat "$PID_FILE" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && [ "$pid" != $$ ] && kill -0 "$pid" 2>/dev/null || return 1
  ps -p "$pid" -o args= 2>/dev/null | grep -q 'demo\.sh' || return 1
  echo "$pid"
}

if [ "${1:-}" = --reset ]; then
  if pid=$(running_demo); then
    die "a demo is running on $VAR/ (pid $pid); stop it (Ctrl-C) before resetting"
  fi
  db=$VAR/qoelab.sqlite3
  rm -rf -- "$db" "$db-journal" "$db-wal" "$db-shm" "$AGENT_DIR" "$AGENT_LOG" \
    "$AGENT_URL_FILE" "$PID_FILE"
  echo "demo: removed the demo state under $VAR/ (database, agent state, log); \`make demo\` starts afresh"
  if [ -n "${DATABASE_URL:-}" ]; then
    echo "demo: DATABASE_URL is set: that database was not touched"
  fi
  exit 0
fi
[ $# -eq 0 ] || die "usage: scripts/demo.sh [--reset]"
if pid=$(running_demo); then
  die "a demo already runs on $VAR/ (pid $pid); stop it, or give this one another QOELAB_DEMO_VAR"
fi

port=
choose_port() { # choose_port VARIABLE DEFAULT HOST [TAKEN...] — sets $port
  local name=$1 default=$2 host=$3 requested=${!1:-}
  shift 3
  if [ -n "$requested" ]; then
    if ! [[ $requested =~ ^[0-9]+$ ]] || [ "$requested" -lt 1 ] || [ "$requested" -gt 65535 ]; then
      die "$name=$requested is not a port number (1-65535)"
    fi
    for taken in "$@"; do
      [ "$requested" != "$taken" ] || die "$name=$requested: port $requested is already the demo's web port; choose another"
    done
    net free "$host" "$requested" ||
      die "$name=$requested: port $requested on $host is already in use; stop what listens there or set $name to a free port"
    port=$requested
    return
  fi
  port=$default
  for taken in "$@"; do
    [ "$port" != "$taken" ] || port=
  done
  if [ -z "$port" ] || ! net free "$host" "$port"; then
    port=$(net pick "$host" "$default" "$@")
    echo "demo: port $default ($name's default) is in use; using port $port instead (set $name to choose)"
  fi
}

mkdir -p "$VAR"
manage preflight
choose_port QOELAB_DEMO_PORT 8000 "$HOST"
WEB_PORT=$port
choose_port QOELAB_DEMO_AGENT_PORT 8787 "$AGENT_HOST" "$WEB_PORT"
AGENT_PORT=$port
AGENT_URL=http://$AGENT_HOST:$AGENT_PORT
case $HOST in 0.0.0.0 | :: | "[::]") probe_host=127.0.0.1 ;; *) probe_host=$HOST ;; esac
WEB_URL=http://$probe_host:$WEB_PORT

pids=()
# shellcheck disable=SC2329 # invoked by the EXIT trap
cleanup() { # stop what the demo started (the agent restores its state on SIGTERM)
  trap - EXIT INT TERM
  local pid
  for pid in ${pids[@]+"${pids[@]}"}; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in ${pids[@]+"${pids[@]}"}; do wait "$pid" 2>/dev/null || true; done
  [ "$(cat "$PID_FILE" 2>/dev/null)" != $$ ] || rm -f "$PID_FILE"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo $$ >"$PID_FILE"

# The station's netem agent, with the dry-run backend: it records the tc operations it would
# perform instead of touching the kernel (GET /v1/operations shows them). It starts while
# the database is migrated.
NETEM_AGENT_TOKEN=$AGENT_TOKEN NETEM_AGENT_LISTEN=$AGENT_HOST NETEM_AGENT_PORT=$AGENT_PORT \
  NETEM_AGENT_DIR=$AGENT_DIR deploy/agent-dry-run.sh >"$AGENT_LOG" 2>&1 &
agent_pid=$!
pids+=("$agent_pid")

manage migrate --noinput
login=$(manage ensure_demo_user --if-absent)
manage load_study fixtures/studies/cloud-gaming-2014.json --owner researcher --if-absent

# Only once this agent has bound its port and answers is the station pointed at it.
if ! net wait-agent "$AGENT_URL" "$agent_pid" "$AGENT_LOG" "$WAIT"; then
  echo "demo: the netem agent did not start; the end of $AGENT_LOG:" >&2
  tail -n 20 "$AGENT_LOG" >&2
  exit 1
fi
previous_url=$(cat "$AGENT_URL_FILE" 2>/dev/null || echo "$LEGACY_AGENT_URL")
manage ensure_station --name "Seat 1" --agent-url "$AGENT_URL" --token="$AGENT_TOKEN" --owner researcher \
  --if-absent --previous-agent-url "$previous_url"
echo "$AGENT_URL" >"$AGENT_URL_FILE"

"$py" backend/manage.py runserver "$HOST:$WEB_PORT" --noreload &
web_pid=$!
pids+=("$web_pid")
if ! net wait-web "$WEB_URL" "$web_pid" "$WAIT"; then
  die "the web server did not start on $HOST:$WEB_PORT (its output is above)"
fi
base=http://$HOST:$WEB_PORT
cat <<MSG

  QoE Lab is running on $base/
  $login
  netem agent (dry-run): $AGENT_URL/healthz, log in $AGENT_LOG
  (admin: $base/admin/ · API docs: $base/api/docs/ · health: $base/healthz)
  Stop with Ctrl-C; \`make demo-reset\` wipes the demo state.

MSG
status=0
wait "$web_pid" || status=$?
die "the web server stopped (exit status $status)"
