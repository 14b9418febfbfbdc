#!/usr/bin/env bash
# Restore a backup written by deploy/backup.sh, then migrate it to this version's schema.
# This REPLACES the current database: stop the web and worker processes first (--compose
# does that itself), and take a fresh backup if in doubt.
#
#   deploy/restore.sh [--compose] --yes BACKUP_DIR
#
# --compose  the docker-compose stack here: stops web, the workers and beat, restores in the `db`
#            container, migrates, starts them again.
# otherwise  DATABASE_URL (or QOELAB_ENV_FILE) as for backup.sh; stop the services first:
#            systemctl stop qoelab-web qoelab-beat 'qoelab-worker@*'
set -euo pipefail
cd "$(dirname "$0")/.."

mode=host
confirmed=no
while [ $# -gt 0 ]; do
  case "$1" in
    --compose) mode=compose ;;
    --yes) confirmed=yes ;;
    -*) echo "restore: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
backup=${1:?usage: deploy/restore.sh [--compose] --yes BACKUP_DIR}
[ -f "$backup/manifest.json" ] || { echo "restore: $backup/manifest.json not found" >&2; exit 2; }
if [ "$confirmed" != yes ]; then
  echo "restore: this replaces the current database with $backup; add --yes to go ahead" >&2
  exit 2
fi

if [ "$mode" = host ] && [ -n "${QOELAB_ENV_FILE:-}" ]; then
  set -a
  # shellcheck disable=SC1090
  . "$QOELAB_ENV_FILE"
  set +a
fi

if [ "$mode" = compose ]; then
  [ -f "$backup/database.dump" ] || { echo "restore: no database.dump in $backup" >&2; exit 2; }
  docker compose stop web worker worker-heavy beat
  docker compose exec -T db pg_restore --username qoelab --dbname qoelab --clean --if-exists \
    --no-owner --single-transaction --exit-on-error <"$backup/database.dump"
  docker compose run --rm --no-deps migrate
  docker compose start web worker worker-heavy beat
else
  url=${DATABASE_URL:-}
  case "$url" in
    postgres://* | postgresql://*)
      pg_restore --dbname "$url" --clean --if-exists --no-owner --single-transaction \
        --exit-on-error "$backup/database.dump"
      ;;
    "" | sqlite://*)
      if [ -z "$url" ]; then
        file="${QOELAB_DATA_DIR:-var}/qoelab.sqlite3"
      else
        file=${url#sqlite://}
      fi
      # Through SQLite's backup API, not cp: the live database runs in WAL mode, and a
      # stale -wal file next to a copied-in file would be replayed onto it.
      .venv/bin/python -c 'import sqlite3, sys
source = sqlite3.connect(sys.argv[1]); target = sqlite3.connect(sys.argv[2])
source.backup(target); target.close()' "$backup/database.sqlite3" "$file"
      ;;
    *)
      echo "restore: DATABASE_URL is neither postgres:// nor sqlite://" >&2
      exit 2
      ;;
  esac
  # A backup from an older version gets this version's migrations.
  .venv/bin/python backend/manage.py migrate --noinput
fi
echo "restore: done from $backup"
