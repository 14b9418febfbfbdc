#!/usr/bin/env bash
# A netem agent in dry-run mode (records operations, changes no interface) for a
# single-box trial and for the production smoke test: the Procfile's `agent` process.
# Writes its configuration under $QOELAB_DATA_DIR/netem-agent/ (default var/) and serves on
# NETEM_AGENT_LISTEN:NETEM_AGENT_PORT (127.0.0.1:8787) with the token NETEM_AGENT_TOKEN
# (required, at least 16 characters; give the same token to the station in QoE Lab).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${NETEM_AGENT_TOKEN:?set NETEM_AGENT_TOKEN (at least 16 characters), e.g. in .env}"
dir="${QOELAB_DATA_DIR:-var}/netem-agent"
mkdir -p "$dir/state"
umask 077
printf '%s\n' "$NETEM_AGENT_TOKEN" >"$dir/token"
cat >"$dir/dry-run.toml" <<TOML
[server]
listen = "${NETEM_AGENT_LISTEN:-127.0.0.1}"
port = ${NETEM_AGENT_PORT:-8787}
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
