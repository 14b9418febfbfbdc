#!/usr/bin/env python3
"""Container health check: GET /healthz on the local gunicorn, exit 0 on HTTP 200.

Sends the first DJANGO_ALLOWED_HOSTS entry as Host (Django rejects unknown hosts) and
reads the port from GUNICORN_BIND. /healthz is exempt from the HTTPS redirect.
"""

import os
import sys
import urllib.error
import urllib.request

hosts = [h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",") if h.strip()]
host = next((h.lstrip(".") for h in hosts if h != "*"), "localhost")
port = (os.environ.get("GUNICORN_BIND", "").strip() or "127.0.0.1:8000").rsplit(":", 1)[-1]
request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": host})
try:
    with urllib.request.urlopen(request, timeout=8) as response:
        sys.exit(0 if response.status == 200 else 1)
except urllib.error.HTTPError as error:
    print(f"/healthz answered {error.code}: {error.read(300)!r}", file=sys.stderr)
except OSError as error:
    print(f"/healthz: {error}", file=sys.stderr)
sys.exit(1)
