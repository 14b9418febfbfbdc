#!/usr/bin/env bash
# A netem agent in dry-run mode (records operations, changes no interface): Procfile.rehearsal's
# `agent` process, the agent of `make demo` (scripts/demo.sh) and of the production smoke
# test. The one launcher of a dry-run agent; everything comes from the environment:
#   NETEM_AGENT_TOKEN   required, at least 16 characters (give the same token to the station)
#   NETEM_AGENT_LISTEN  address to listen on (127.0.0.1; the agent refuses any non-loopback
#                       address without TLS, docs/agent.md "Transport security")
#   NETEM_AGENT_PORT    port (8787)
#   NETEM_AGENT_DIR     where its configuration, token and state go
#                       (default $QOELAB_DATA_DIR/netem-agent, QOELAB_DATA_DIR default var/)
#   NETEM_AGENT_CLIENT_IFACE, NETEM_AGENT_SERVER_IFACE  interface names it reports
#                       (veth-client, veth-server)
# Relative paths are relative to the repository root. The agent replaces this shell (exec),
# so the launcher's PID is the agent's; once bound it prints {"listening": …, "pid": …}.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${NETEM_AGENT_TOKEN:?set NETEM_AGENT_TOKEN (at least 16 characters), e.g. in .env}"
port=${NETEM_AGENT_PORT:-8787}
if ! [[ $port =~ ^[0-9]+$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
  echo "NETEM_AGENT_PORT=$port: not a port number (1-65535)" >&2
  exit 2
fi
dir="${NETEM_AGENT_DIR:-${QOELAB_DATA_DIR:-var}/netem-agent}"
mkdir -p "$dir/state"
umask 077
printf '%s\n' "$NETEM_AGENT_TOKEN" >"$dir/token"
cat >"$dir/dry-run.toml" <<TOML
[server]
listen = "${NETEM_AGENT_LISTEN:-127.0.0.1}"
port = $port
token_file = "token"

[topology]
mode = "bridge"
client_iface = "${NETEM_AGENT_CLIENT_IFACE:-veth-client}"
server_iface = "${NETEM_AGENT_SERVER_IFACE:-veth-server}"

[agent]
backend = "dry-run"
state_dir = "state"
TOML
agent=netem-agent
[ -x .venv/bin/netem-agent ] && agent=.venv/bin/netem-agent
exec "$agent" serve --config "$dir/dry-run.toml"
