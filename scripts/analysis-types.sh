#!/usr/bin/env bash
# The results explorer's types of the analysis document, generated from its JSON Schema.
#   scripts/analysis-types.sh write          regenerate the schema JSON and the TypeScript types
#   scripts/analysis-types.sh check [FILE]   fail (exit 1, with the diff) when FILE (default: the
#                                            checked-in analysisDoc.gen.ts) or the checked-in
#                                            schema JSON differs from a fresh generation
# The schema comes from the TypedDicts of qoe_analysis.schema (`python -m qoe_analysis.schema`,
# pydantic), the types from the pinned json-schema-to-typescript: both are deterministic, so
# any difference means the document's types changed without the frontend's being regenerated.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TYPES=frontend/src/results/analysisDoc.gen.ts
SCHEMA=analysis/src/qoe_analysis/schema/analysis-document.schema.json
# shellcheck disable=SC2016  # the backquotes are Markdown, not a command substitution
HEADER='// GENERATED FILE, do not edit: `scripts/analysis-types.sh write` writes it from the analysis
// document JSON Schema (`python -m qoe_analysis.schema`) with json-schema-to-typescript;
// `make lint` fails on drift. Linted as its generator writes it:
/* eslint-disable */'

schema() {  # schema OUT
  "$ROOT/.venv/bin/python" -m qoe_analysis.schema >"$1" || {
    echo "analysis-types: the analysis document's JSON Schema could not be generated" >&2
    return 1
  }
}

generate() {  # generate SCHEMA_JSON OUT
  local work
  work=$(mktemp -d)
  # shellcheck disable=SC2064  # expand now: the trap must remove this call's directory
  trap "rm -rf '$work'" RETURN
  "$ROOT/frontend/node_modules/.bin/json2ts" --input "$1" --output "$work/types.ts" \
    --bannerComment '' --no-additionalProperties >/dev/null 2>"$work/stderr" || {
    cat "$work/stderr" >&2
    echo "analysis-types: json-schema-to-typescript failed" >&2
    return 1
  }
  { printf '%s\n' "$HEADER"; cat "$work/types.ts"; } >"$2"
}

case "${1:-}" in
  write)
    schema "$ROOT/$SCHEMA"
    generate "$ROOT/$SCHEMA" "$ROOT/$TYPES"
    echo "analysis-types: wrote $SCHEMA and $TYPES" ;;
  check)
    file=$(realpath "${2:-$ROOT/$TYPES}")
    fresh=$(mktemp -d)
    trap 'rm -rf "$fresh"' EXIT
    schema "$fresh/schema.json"
    generate "$fresh/schema.json" "$fresh/types.ts"
    drift=0
    diff -u --label "$SCHEMA (checked in)" --label "python -m qoe_analysis.schema" \
      "$ROOT/$SCHEMA" "$fresh/schema.json" || drift=1
    diff -u --label "$file (checked in)" --label "generated from the analysis schema" \
      "$file" "$fresh/types.ts" || drift=1
    if [ "$drift" -ne 0 ]; then
      echo "analysis-types: DRIFT: the checked-in schema or types do not match qoe_analysis.schema." >&2
      echo "analysis-types: regenerate them with \`scripts/analysis-types.sh write\` and commit them." >&2
      exit 1
    fi
    echo "analysis-types: $file matches the analysis document's schema" ;;
  *)
    echo "usage: $0 write | check [FILE]" >&2
    exit 2 ;;
esac
