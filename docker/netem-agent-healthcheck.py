#!/usr/bin/env python3
"""Container health check of the netem agent: GET /healthz (no token needed) on the
address and port of its configuration; exit 0 on HTTP 200."""

import os
import sys
import urllib.request

from netem_agent.config import ConfigError, load_config

try:
    config = load_config(os.environ.get("NETEM_AGENT_CONFIG", "/etc/netem-agent/agent.toml"))
except ConfigError as error:
    print(f"configuration: {error}", file=sys.stderr)
    sys.exit(1)
host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(config.listen, config.listen)
url = (
    f"http://[{host}]:{config.port}/healthz"
    if ":" in host
    else f"http://{host}:{config.port}/healthz"
)
try:
    with urllib.request.urlopen(url, timeout=4) as response:
        sys.exit(0 if response.status == 200 else 1)
except OSError as error:
    print(f"{url}: {error}", file=sys.stderr)
sys.exit(1)
