"""gunicorn settings for QoE Lab, shared by the container image, the Procfile and systemd.

    gunicorn -c deploy/gunicorn.conf.py qoelab.wsgi:application

Environment: GUNICORN_BIND (default 127.0.0.1:8000: behind nginx on the same host; the
container image sets 0.0.0.0:8000, a lab without a proxy sets it too), GUNICORN_WORKERS
(default CPUs + 1, at most 8), GUNICORN_WORKER_CLASS (default gthread; gthread and sync
answer malformed requests in JSON), GUNICORN_THREADS (default 8 per worker),
GUNICORN_TIMEOUT (60 s), GUNICORN_FORWARDED_ALLOW_IPS (proxies whose X-Forwarded-Proto
gunicorn believes; default: QOELAB_TRUSTED_PROXIES, the list Django reads X-Forwarded-For
from, which is empty unless set — nobody is trusted implicitly). With QOELAB_ENV=production
gunicorn's own error and access logs are JSON lines too, like Django's (qoelab.settings).
"""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "").strip() or "127.0.0.1:8000"
# CPUs + 1 processes (docs/performance.md, live lab): each gthread worker overlaps its
# requests' waits on PostgreSQL and the agents in its threads, so more processes than cores
# add context switches, PostgreSQL backends and memory, not throughput (less server CPU per
# request with 3 workers than with 2 x CPUs + 1 on 2 cores).
workers = int(os.environ.get("GUNICORN_WORKERS", min(multiprocessing.cpu_count() + 1, 8)))
# Threaded workers (docs/performance.md, live lab): every screen and console polls
# each second over a keep-alive connection. A sync worker serves one request at a time and
# closes the connection after it, so a poll waits behind a slow request (a rating that
# applies the next scenario through the agent) and pays a new TCP connection each time; a
# gthread worker keeps idle keep-alive connections aside and serves `threads` requests at
# once, which overlaps the waits on PostgreSQL and the agents. Each thread keeps its own
# database connection (CONN_MAX_AGE, qoelab.config): workers x threads connections at most.
# 8 threads: a keep-alive connection stays with the worker that accepted it, so a worker's
# polls queue behind its slow requests (a rating applying the next scenario, a console
# read, a due lease renewal: each waits on the agent or a row lock) once all its threads
# hold one; with 4 the participant poll's p99 in the live-lab bench was 2-3x that with 8.
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
# gunicorn's own answers to malformed requests (a control character in a header, a broken
# request line, headers over its limits) are HTML pages; these subclasses of its gthread and
# sync workers answer them in JSON like the app's errors (qoelab.core.gunicorn_workers,
# docs/deploy.md "Malformed requests"). Any other GUNICORN_WORKER_CLASS is used as given.
JSON_ERROR_WORKERS = {
    "gthread": "qoelab.core.gunicorn_workers.JsonErrorThreadWorker",
    # gunicorn itself runs "sync" as gthread when threads > 1; so do we.
    "sync": "qoelab.core.gunicorn_workers."
    + ("JsonErrorSyncWorker" if threads == 1 else "JsonErrorThreadWorker"),
}
_worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "").strip() or "gthread"
worker_class = JSON_ERROR_WORKERS.get(_worker_class, _worker_class)
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = 30
keepalive = 5
# Explicit, never gunicorn's implicit default (FORWARDED_ALLOW_IPS or 127.0.0.1,::1).
forwarded_allow_ips = (
    os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "").strip()
    or os.environ.get("QOELAB_TRUSTED_PROXIES", "").strip()
)
accesslog = "-"
errorlog = "-"
# Heartbeat files on tmpfs when there is one (containers: /dev/shm), not on the image's disk.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# Recent gunicorn (27 in uv.lock) opens a control socket under $HOME by default; the managers used
# here (compose, systemd, honcho) do not need it, and the container user has no home.
control_socket_disable = True
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'

if os.environ.get("QOELAB_ENV", "").strip().lower() == "production":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "qoelab.json_logs.JsonLogFormatter"}},
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stdout",
            },
        },
        "root": {"level": "INFO", "handlers": ["stdout"]},
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["stdout"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["stdout"], "propagate": False},
        },
    }
