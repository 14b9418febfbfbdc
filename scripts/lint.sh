#!/usr/bin/env bash
# Every linter of the project, each run even after another fails, then one summary line.
# Exit 1 when any linter fails, naming which; `make lint` and CI (.ci/run) call this.
# QOELAB_LINT_ONLY="ruff eslint" runs just the named checks (the CI gate test uses it to
# prove the gate without a full lint per copy); the summary then says so.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
failed=()
only=" ${QOELAB_LINT_ONLY:-} "

check() {  # check NAME COMMAND...
  local name=$1
  shift
  if [ "$only" != "  " ] && [[ "$only" != *" $name "* ]]; then
    return 0
  fi
  echo "== $name: $*"
  "$@" || failed+=("$name")
}

check ruff-format .venv/bin/ruff format --check .
check ruff .venv/bin/ruff check .
for package in backend analysis netem-agent netem-profile testkit steer; do
  check "mypy-$package" .venv/bin/mypy --config-file "$package/pyproject.toml" "$package/src"
done
check tsc npm run --prefix frontend --silent typecheck
check eslint npm run --prefix frontend --silent lint
check api-types scripts/api-types.sh check
check analysis-types scripts/analysis-types.sh check
check factor-catalog .venv/bin/python scripts/factor-catalog.py check
check pilot-analysis .venv/bin/python scripts/pilot-analysis-fixture.py check
check deploy scripts/lint-deploy.sh
check structure .venv/bin/python scripts/check_structure.py

if [ ${#failed[@]} -gt 0 ]; then
  echo "lint: FAILED: ${failed[*]}"
  exit 1
fi
if [ "$only" != "  " ]; then
  echo "lint: all clean (only:${only% })"
else
  echo "lint: all clean"
fi
