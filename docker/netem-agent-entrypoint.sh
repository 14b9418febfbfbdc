#!/bin/sh
# Entry point of the netem-agent image: `netem-agent serve --config $NETEM_AGENT_CONFIG`.
# The agent reads its bearer token from the file named by `token_file` in its
# configuration; when NETEM_AGENT_TOKEN is set (compose passes it from .env), it is written
# to /run/qoelab/agent-token (tmpfs, mode 0600) for a configuration that names that file.
set -eu
config=${NETEM_AGENT_CONFIG:-/etc/netem-agent/agent.toml}
if [ ! -r "$config" ]; then
  echo "netem-agent-entrypoint: no configuration at $config; mount one (see deploy/netem-agent/agent.toml.example)" >&2
  exit 2
fi
if [ -n "${NETEM_AGENT_TOKEN:-}" ]; then
  umask 077
  mkdir -p /run/qoelab
  printf '%s\n' "$NETEM_AGENT_TOKEN" >/run/qoelab/agent-token
  unset NETEM_AGENT_TOKEN
fi
if [ $# -gt 0 ]; then
  exec netem-agent "$@"
fi
exec netem-agent serve --config "$config"
