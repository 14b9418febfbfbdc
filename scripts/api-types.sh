#!/usr/bin/env bash
# The frontend's API types, generated from the backend's OpenAPI schema.
#   scripts/api-types.sh write          regenerate frontend/src/api/schema.d.ts
#   scripts/api-types.sh check [FILE]   fail (exit 1, with the diff) when FILE (default: the
#                                       checked-in schema.d.ts) differs from a fresh generation
# The schema comes from drf-spectacular offline (`qoelab-manage spectacular`, no server, no
# database), the types from the pinned openapi-typescript: both are deterministic, so any
# difference means a serializer changed without the types being regenerated (or vice versa).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TYPES=frontend/src/api/schema.d.ts
# shellcheck disable=SC2016  # the backquotes are Markdown, not a command substitution
HEADER='// GENERATED FILE, do not edit: `npm run --prefix frontend api:types` writes it from the
// backend OpenAPI schema (drf-spectacular) with openapi-typescript; `make lint` fails on drift.'

generate() {  # generate OUT
  local out=$1 work
  work=$(mktemp -d)
  # shellcheck disable=SC2064  # expand now: the trap must remove this call's directory
  trap "rm -rf '$work'" RETURN
  # The schema depends on the database engine (integer ranges: SQLite's are 64-bit, so
  # fields get "Format: int64"), so it is always generated for the production engine,
  # PostgreSQL, whatever DATABASE_URL says. Nothing connects to this URL.
  (cd "$ROOT/backend" && env -u CELERY_BROKER_URL DJANGO_SETTINGS_MODULE=qoelab.settings \
    DATABASE_URL=postgres://schema@127.0.0.1:1/qoelab_schema \
    "$ROOT/.venv/bin/qoelab-manage" spectacular --file "$work/openapi.yaml") 2>"$work/stderr" || {
    cat "$work/stderr" >&2
    echo "api-types: the backend's OpenAPI schema could not be generated" >&2
    return 1
  }
  "$ROOT/frontend/node_modules/.bin/openapi-typescript" "$work/openapi.yaml" \
    --output "$work/schema.d.ts" >/dev/null 2>"$work/stderr" || {
    cat "$work/stderr" >&2
    echo "api-types: openapi-typescript failed" >&2
    return 1
  }
  { printf '%s\n' "$HEADER"; cat "$work/schema.d.ts"; } >"$out"
}

case "${1:-}" in
  write)
    generate "$ROOT/$TYPES"
    echo "api-types: wrote $TYPES" ;;
  check)
    file=$(realpath "${2:-$ROOT/$TYPES}")
    fresh=$(mktemp)
    trap 'rm -f "$fresh"' EXIT
    generate "$fresh"
    if ! diff -u --label "$file (checked in)" --label "generated from the OpenAPI schema" "$file" "$fresh"; then
      echo "api-types: DRIFT: $file does not match the backend's OpenAPI schema." >&2
      echo "api-types: regenerate it with \`npm run --prefix frontend api:types\` and commit it." >&2
      exit 1
    fi
    echo "api-types: $file matches the OpenAPI schema" ;;
  *)
    echo "usage: $0 write | check [FILE]" >&2
    exit 2 ;;
esac
