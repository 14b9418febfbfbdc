#!/bin/sh
# Entry point of the backend image. Commands:
#   web              preflight (database + broker), optionally migrate, then gunicorn
#   worker [ARGS]    preflight, then a Celery worker (extra ARGS go to `celery worker`) on
#                    the queues CELERY_QUEUES: "celery" (heartbeat, session expiry, ping),
#                    "heavy" (imports, analyses); compose runs one worker per queue
#   beat [ARGS]      preflight, then Celery beat: the periodic tasks (agent lease heartbeat,
#                    session expiry). Exactly one per lab.
#   migrate          preflight, migrate, exit (the compose `migrate` one-shot service)
#   manage ARGS      any manage.py command, e.g. `manage load_study /app/fixtures/...`
#   anything else    executed as is
# Environment: QOELAB_MIGRATE_ON_START=1 makes `web` migrate first (single-container
# setups; compose uses the `migrate` service instead); QOELAB_PREFLIGHT_ATTEMPTS (30) x 2 s
# is how long to wait for the database and the broker; CELERY_CONCURRENCY (2),
# CELERY_QUEUES (celery,heavy: both, for a single container), CELERY_LOGLEVEL (INFO).
set -eu

manage() { python /app/backend/manage.py "$@"; }

preflight() {
  attempts=${QOELAB_PREFLIGHT_ATTEMPTS:-30}
  n=1
  until manage preflight; do
    if [ "$n" -ge "$attempts" ]; then
      echo "qoelab-entrypoint: preflight failed $attempts times; giving up" >&2
      exit 1
    fi
    n=$((n + 1))
    sleep 2
  done
}

command=${1:-web}
[ $# -gt 0 ] && shift
case "$command" in
  web)
    preflight
    case "${QOELAB_MIGRATE_ON_START:-0}" in
      1 | true | yes) manage migrate --noinput ;;
    esac
    exec gunicorn --config /app/deploy/gunicorn.conf.py "$@" qoelab.wsgi:application
    ;;
  worker)
    preflight
    exec celery --app qoelab worker \
      --loglevel "${CELERY_LOGLEVEL:-INFO}" \
      --concurrency "${CELERY_CONCURRENCY:-2}" \
      --queues "${CELERY_QUEUES:-celery,heavy}" \
      --hostname "worker@%h" "$@"
    ;;
  beat)
    preflight
    exec celery --app qoelab beat \
      --loglevel "${CELERY_LOGLEVEL:-INFO}" \
      --schedule "${QOELAB_DATA_DIR:-/var/lib/qoelab}/celerybeat-schedule" "$@"
    ;;
  migrate)
    preflight
    exec python /app/backend/manage.py migrate --noinput "$@"
    ;;
  manage)
    exec python /app/backend/manage.py "$@"
    ;;
  *)
    exec "$command" "$@"
    ;;
esac
