#!/usr/bin/env bash
# Re-pin the Faucet tool environment (run from the repository root after editing
# requirements.in). The test fixture builds var/tools/faucet-venv from requirements.txt.
set -euo pipefail
cd "$(dirname "$0")"
UV_PYTHON_DOWNLOADS=never ../../../.venv/bin/uv pip compile --universal --python-version 3.11 \
  --generate-hashes --custom-compile-command "analysis/policy-tools/faucet/compile.sh" \
  requirements.in -o requirements.txt
