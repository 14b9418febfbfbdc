#!/usr/bin/env python3
"""Container health check of the netem agent: GET /healthz (no token needed) on the
address and port of its configuration, over HTTPS when it has a TLS certificate; exit 0 on
HTTP 200."""

import os
import ssl
import sys
import urllib.request

from netem_agent.config import ConfigError, load_config

try:
    config = load_config(os.environ.get("NETEM_AGENT_CONFIG", "/etc/netem-agent/agent.toml"))
except ConfigError as error:
    print(f"configuration: {error}", file=sys.stderr)
    sys.exit(1)
host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(config.listen, config.listen)
scheme = "https" if config.tls_cert_file is not None else "http"
url = (
    f"{scheme}://[{host}]:{config.port}/healthz"
    if ":" in host
    else f"{scheme}://{host}:{config.port}/healthz"
)
context = None
if config.tls_cert_file is not None:
    # The agent's own certificate is the trust anchor; it names the box's lab address, not
    # the loopback one asked here, so only the host name check is off.
    context = ssl.create_default_context(cafile=str(config.tls_cert_file))
    context.check_hostname = False
try:
    with urllib.request.urlopen(url, timeout=4, context=context) as response:
        sys.exit(0 if response.status == 200 else 1)
except OSError as error:
    print(f"{url}: {error}", file=sys.stderr)
sys.exit(1)
