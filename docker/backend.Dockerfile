# syntax=docker/dockerfile:1
# QoE Lab backend image: the web process (gunicorn, serving the built frontend through
# WhiteNoise) and the Celery worker. Build from the repository root:
#   docker build -f docker/backend.Dockerfile -t qoelab-backend .
# (`docker compose build` does this for you; see docs/deploy.md.)

# --- 1. frontend: the Vite build from frontend/package-lock.json ---------------------------
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY frontend/ ./
RUN npm run build

# --- 2. python: the locked environment (uv.lock) and the collected static files ------------
FROM python:3.11-slim-bookworm AS python
# The same uv as the repository's dev group and scripts/bootstrap-python.sh.
RUN pip install --no-cache-dir --disable-pip-version-check "uv==0.13.8"
ENV UV_PROJECT_ENVIRONMENT=/app/.venv \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_NO_CACHE=1
WORKDIR /app
# Manifests first, so the dependency layer is rebuilt only when the lock changes.
COPY pyproject.toml uv.lock ./
COPY backend/pyproject.toml backend/
COPY analysis/pyproject.toml analysis/
COPY netem-agent/pyproject.toml netem-agent/
COPY netem-profile/pyproject.toml netem-profile/
RUN uv sync --frozen --no-dev --package qoe-lab-backend --no-install-workspace
COPY backend/ backend/
COPY analysis/ analysis/
COPY netem-agent/ netem-agent/
COPY netem-profile/ netem-profile/
RUN uv sync --frozen --no-dev --package qoe-lab-backend
COPY --from=frontend /src/frontend/dist/ frontend/dist/
# Hashed, compressed static files (admin, API docs, frontend) baked into the image, outside
# the data volume so that an upgraded image never serves a previous version's files. The
# key and host below exist only for this build step; the running container needs real ones.
RUN QOELAB_ENV=production \
    DJANGO_SECRET_KEY=collectstatic-at-image-build-time-only \
    DJANGO_ALLOWED_HOSTS=image-build \
    QOELAB_DATA_DIR=/tmp/image-build \
    QOELAB_STATIC_ROOT=/app/static \
    QOELAB_FRONTEND_DIST=/app/frontend/dist \
    /app/.venv/bin/python backend/manage.py collectstatic --noinput --verbosity 0 \
    && rm -rf /tmp/image-build

# --- 3. runtime: non-root, no build tools ---------------------------------------------------
FROM python:3.11-slim-bookworm
RUN groupadd --system --gid 10001 qoelab \
    && useradd --system --uid 10001 --gid qoelab --home-dir /var/lib/qoelab \
       --no-create-home --shell /usr/sbin/nologin qoelab \
    && install -d -o qoelab -g qoelab -m 0750 /var/lib/qoelab
COPY --from=python /app/ /app/
COPY fixtures/ /app/fixtures/
COPY deploy/gunicorn.conf.py /app/deploy/gunicorn.conf.py
COPY --chmod=0755 docker/backend-entrypoint.sh /usr/local/bin/qoelab-entrypoint
COPY --chmod=0755 docker/healthcheck.py /usr/local/bin/qoelab-healthcheck
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    QOELAB_ENV=production \
    QOELAB_DATA_DIR=/var/lib/qoelab \
    QOELAB_STATIC_ROOT=/app/static \
    QOELAB_FRONTEND_DIST=/app/frontend/dist \
    GUNICORN_BIND=0.0.0.0:8000
USER 10001:10001
WORKDIR /app/backend
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 CMD ["qoelab-healthcheck"]
ENTRYPOINT ["qoelab-entrypoint"]
CMD ["web"]
