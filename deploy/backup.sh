#!/usr/bin/env bash
# Back up QoE Lab: the database (pg_dump custom format, or a copy of the SQLite file) and,
# when this version has the `export_study` management command, every study's export.
#
#   deploy/backup.sh [--compose] [DEST]        (default DEST: ./backups)
#
# --compose  the docker-compose stack in this directory: pg_dump runs in the `db`
#            container, manage.py in the `web` container.
# otherwise  this checkout: DATABASE_URL from the environment (or from the file named by
#            QOELAB_ENV_FILE, e.g. /etc/qoelab/qoelab.env), manage.py from .venv/.
#
# Writes DEST/qoelab-<UTC time>/ with database.dump (or database.sqlite3), exports/ and
# manifest.json (QoE Lab version, applied migrations, what was written). Restore with
# deploy/restore.sh. Safe while the lab runs (pg_dump reads one consistent snapshot).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=host
if [ "${1:-}" = "--compose" ]; then
  mode=compose
  shift
fi
dest_root=${1:-backups}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
dest="$dest_root/qoelab-$stamp"
mkdir -p "$dest/exports"
umask 077

if [ "$mode" = host ] && [ -n "${QOELAB_ENV_FILE:-}" ]; then
  set -a
  # shellcheck disable=SC1090
  . "$QOELAB_ENV_FILE"
  set +a
fi

manage() {
  if [ "$mode" = compose ]; then
    docker compose exec -T web python /app/backend/manage.py "$@"
  else
    .venv/bin/python backend/manage.py "$@"
  fi
}

# --- the database ------------------------------------------------------------------------
if [ "$mode" = compose ]; then
  docker compose exec -T db pg_dump --username qoelab --dbname qoelab --format custom \
    >"$dest/database.dump"
  database=database.dump
else
  url=${DATABASE_URL:-}
  case "$url" in
    postgres://* | postgresql://*)
      pg_dump --format custom --file "$dest/database.dump" "$url"
      database=database.dump
      ;;
    "" | sqlite://*)
      if [ -z "$url" ]; then
        file="${QOELAB_DATA_DIR:-var}/qoelab.sqlite3"
      else
        file=${url#sqlite://}
      fi
      # SQLite's online backup: consistent even while the server writes.
      .venv/bin/python -c 'import sqlite3, sys
source = sqlite3.connect(sys.argv[1]); target = sqlite3.connect(sys.argv[2])
source.backup(target); target.close()' "$file" "$dest/database.sqlite3"
      database=database.sqlite3
      ;;
    *)
      echo "backup: DATABASE_URL is neither postgres:// nor sqlite://" >&2
      exit 2
      ;;
  esac
fi
echo "backup: database -> $dest/$database"

# --- the study exports (versioned documents, readable without QoE Lab) ---------------------
if manage help export_study >/dev/null 2>&1; then
  if [ "$mode" = compose ]; then
    # Written inside the container, then copied out.
    manage export_study --all --output-dir /tmp/qoelab-backup-exports
    docker compose cp web:/tmp/qoelab-backup-exports/. "$dest/exports/"
    docker compose exec -T web rm -rf /tmp/qoelab-backup-exports
  else
    manage export_study --all --output-dir "$dest/exports"
  fi
  exports=written
else
  echo "backup: this version has no export_study command; the database dump holds everything"
  exports=none
fi

# --- the manifest --------------------------------------------------------------------------
version=$(manage shell --no-imports -c 'import qoelab; print(qoelab.__version__)' 2>/dev/null ||
  echo unknown)
manage showmigrations --plan >"$dest/migrations.txt"
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
cat >"$dest/manifest.json" <<JSON
{"format": "qoelab.backup/v1", "created": "$stamp", "qoelab_version": "$version",
 "git_commit": "$commit", "database": "$database", "exports": "$exports",
 "migrations": "migrations.txt"}
JSON
echo "backup: done: $dest"
