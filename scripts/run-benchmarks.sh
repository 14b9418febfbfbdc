#!/usr/bin/env bash
# `make bench`: every benchmark with its reproducible inputs; results land in var/bench/.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
mkdir -p var/bench
status=0
ran=0
for bench in analysis/bench/bench_analyze.py analysis/bench/bench_subject_model.py \
  netem-agent/bench/bench_apply.py backend/bench/bench_results.py; do
  if [ -f "$bench" ]; then
    echo "=== $bench"
    .venv/bin/python "$bench" || status=1
    ran=$((ran + 1))
  fi
done
echo "=== frontend bundle sizes (gzipped, per entry)"
node frontend/scripts/bundle-size.mjs || status=1
ran=$((ran + 1))
echo "ran $ran benchmark(s); results in var/bench/"
exit $status
