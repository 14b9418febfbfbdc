# syntax=docker/dockerfile:1
# The netem agent for a station's emulator box (the machine between game client and game
# server). Build from the repository root:
#   docker build -f docker/netem-agent.Dockerfile -t qoelab-netem-agent .
# Run it with the host's network and CAP_NET_ADMIN only (docker-compose.yml, service
# netem-agent, profile "emulator"); its configuration is a mounted TOML file and its token
# comes from NETEM_AGENT_TOKEN (see docs/deploy.md).

FROM python:3.11-slim-bookworm AS build
RUN pip install --no-cache-dir --disable-pip-version-check "uv==0.13.8"
ENV UV_PROJECT_ENVIRONMENT=/opt/netem-agent \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_NO_CACHE=1
WORKDIR /src
COPY pyproject.toml uv.lock ./
COPY backend/pyproject.toml backend/
COPY analysis/pyproject.toml analysis/
COPY netem-agent/pyproject.toml netem-agent/
COPY netem-profile/pyproject.toml netem-profile/
RUN uv sync --frozen --no-dev --package netem-agent --no-install-workspace
COPY netem-agent/ netem-agent/
COPY netem-profile/ netem-profile/
# --no-editable: the agent is installed into the environment; no source tree at run time.
RUN uv sync --frozen --no-dev --package netem-agent --no-editable

FROM python:3.11-slim-bookworm
COPY --from=build /opt/netem-agent/ /opt/netem-agent/
COPY --chmod=0755 docker/netem-agent-entrypoint.sh /usr/local/bin/netem-agent-entrypoint
COPY --chmod=0755 docker/netem-agent-healthcheck.py /usr/local/bin/netem-agent-healthcheck
ENV PATH=/opt/netem-agent/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    NETEM_AGENT_CONFIG=/etc/netem-agent/agent.toml
# No USER: changing qdiscs needs CAP_NET_ADMIN in the effective set, which Docker grants to
# root only. The compose service drops every other capability (cap_drop: ALL) and runs
# the container read-only.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["netem-agent-healthcheck"]
ENTRYPOINT ["netem-agent-entrypoint"]
