#!/usr/bin/env bash
# Run every test suite, even after one fails, then print one summary.
# QOELAB_STRICT=1 (set by .ci/run) turns a missing prerequisite or any skipped test into a
# failure: CI must run every suite for real.
# Usage: scripts/run-tests.sh [suite...]   (default: all; suites: testkit backend analysis agent steer deploy frontend browser)
# The agent suite runs the netem-profile tests first (summary line "profile").
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
RESULTS=var/test-results
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(testkit backend analysis agent steer deploy frontend browser)
status=0

run_suite() {  # run_suite NAME COMMAND...
  local name=$1
  shift
  echo
  echo "=== $name: $*"
  "$@"
  local code=$?
  echo "$name $code" >>"$RESULTS/exit-codes"
  [ $code -eq 0 ] || status=1
}

pytest_suite() {  # pytest_suite NAME DIR [ARGS...]
  local name=$1 dir=$2
  shift 2
  # shellcheck disable=SC2016 # $1 and $@ belong to the inner shell
  run_suite "$name" bash -c 'cd "$1" && shift && exec "$@"' _ "$dir" \
    "$PWD/.venv/bin/pytest" --junitxml="$PWD/$RESULTS/$name.xml" "$@"
}

for suite in "${suites[@]}"; do
  case "$suite" in
    testkit) pytest_suite testkit testkit ;;
    backend) pytest_suite backend backend ;;
    analysis) pytest_suite analysis analysis ;;
    agent)
      scripts/check-prereqs.sh kernel || echo "(the agent's kernel tests will report the missing package)"
      pytest_suite profile netem-profile  # the profile schema the agent and the backend share
      pytest_suite agent netem-agent ;;
    steer)
      scripts/check-prereqs.sh kernel || echo "(the steering service's kernel tests will report the missing package)"
      pytest_suite steer steer ;;
    deploy) pytest_suite deploy deploy ;;
    frontend)
      run_suite frontend npm --prefix frontend run --silent test -- \
        --reporter=default --reporter=junit --outputFile.junit="$PWD/$RESULTS/frontend.xml" ;;
    browser)
      scripts/check-prereqs.sh browser || echo "(the browser tests will report the missing package)"
      pytest_suite browser e2e ;;
    *) echo "unknown suite: $suite" >&2; exit 2 ;;
  esac
done

echo
.venv/bin/python scripts/junit_summary.py "$RESULTS" || status=1
exit $status
