#!/usr/bin/env bash
# Tell the user which system component a test suite needs and which Debian package has it.
# Usage: scripts/check-prereqs.sh [browser|kernel|node]...  Exit 1 if anything is missing.
set -uo pipefail
missing=0
need() {  # need WHAT DEBIAN_PACKAGE TEST_COMMAND...
  local what=$1 package=$2
  shift 2
  if ! "$@" >/dev/null 2>&1; then
    echo "missing: $what — install the Debian package '$package' (apt-get install $package)" >&2
    missing=1
  fi
}
for suite in "$@"; do
  case "$suite" in
    node)
      need "Node.js >= 20" nodejs node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'
      need "npm" npm npm --version ;;
    browser)
      need "Chromium (/usr/bin/chromium) for the browser tests" chromium test -x /usr/bin/chromium ;;
    kernel)
      need "user-mode Linux (/usr/bin/linux.uml) for the netem kernel tests" user-mode-linux test -x /usr/bin/linux.uml
      need "insmod for loading netem modules into the user-mode kernel" kmod test -x /usr/sbin/insmod
      need "tc and ip (iproute2)" iproute2 test -x /usr/sbin/tc
      need "gcc for the user-mode kernel's XSAVE shim (hosts with AVX-512 or AMX)" gcc command -v gcc ;;
    *) echo "unknown prerequisite group: $suite" >&2; exit 2 ;;
  esac
done
exit $missing
