# QoE Lab — the two commands a newcomer needs are `make demo` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV_STAMP := .venv/.synced
NODE_STAMP := frontend/node_modules/.package-lock.json
FRONTEND_BUILD := frontend/dist/index.html
FRONTEND_SOURCES := $(shell find frontend/src frontend/index.html frontend/participant.html frontend/vite.config.ts frontend/tsconfig*.json frontend/package.json -type f 2>/dev/null)
PYTHON_MANIFESTS := pyproject.toml uv.lock backend/pyproject.toml analysis/pyproject.toml netem-agent/pyproject.toml netem-profile/pyproject.toml steer/pyproject.toml

.PHONY: help demo demo-reset test lint format bench frontend python node clean screenshots

help:
	@echo "make demo    run QoE Lab on http://127.0.0.1:8000 with the example study (SQLite, in-process tasks)"
	@echo "make demo-reset  delete the demo's database, agent state and log (a fresh \`make demo\`)"
	@echo "make test    run every test suite (backend, analysis, agent incl. kernel, frontend, browser)"
	@echo "make lint    ruff, mypy, tsc and eslint"
	@echo "make bench   benchmarks with reproducible inputs (results in var/bench/)"

$(VENV_STAMP): $(PYTHON_MANIFESTS) scripts/bootstrap-python.sh
	scripts/bootstrap-python.sh
	touch $@

$(NODE_STAMP): frontend/package-lock.json frontend/package.json
	@scripts/check-prereqs.sh node
	npm ci --prefix frontend --no-audit --no-fund --loglevel=error

$(FRONTEND_BUILD): $(NODE_STAMP) $(FRONTEND_SOURCES)
	npm run --prefix frontend --silent build

python: $(VENV_STAMP)
node: $(NODE_STAMP)
frontend: $(FRONTEND_BUILD)

demo: $(VENV_STAMP) $(FRONTEND_BUILD)
	scripts/demo.sh

demo-reset:
	scripts/demo.sh --reset

test: $(VENV_STAMP) $(FRONTEND_BUILD)
	scripts/run-tests.sh

lint: $(VENV_STAMP) $(NODE_STAMP)
	scripts/lint.sh

format: $(VENV_STAMP)
	.venv/bin/ruff format .
	.venv/bin/ruff check --fix .

bench: $(VENV_STAMP) $(FRONTEND_BUILD)
	scripts/run-benchmarks.sh

clean:
	rm -rf var frontend/dist

.PHONY: screenshots
screenshots: $(VENV_STAMP) $(FRONTEND_BUILD)
	cd e2e && ../.venv/bin/python take_screenshots.py
