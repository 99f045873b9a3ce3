# Tabletop: `make run` runs the whole stack, `make test` runs the tests.
# Both set everything up on a fresh machine that has Python 3.11 and make.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PROTOS := $(shell find proto -name '*.proto' 2>/dev/null)
GEN    := gen/.generated
# The games' protos are rendered from their dataclasses (tools/gen_game_protos.py).
# The web table (web/) is plain ES modules served as they are: no build step.
# Its browser tests need node_modules (playwright-core) and Debian's chromium.
WEB_NODE := web/node_modules/.installed
CHROMIUM ?= /usr/bin/chromium

.DEFAULT_GOAL := help
.PHONY: help setup proto run test test-fast soak lint bots-eval bench profile scale golden clean web-deps web-node web-fixtures web-shots

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	echo "$(CURDIR)/gen" > $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/tabletop-gen.pth
	touch $@

# Compiles the committed protos only: a game proto that no longer matches its
# dataclasses fails tests/games/test_schema.py until `make proto` renders it.
$(GEN): $(STAMP) $(PROTOS) tools/gen_proto.py
	$(PY) tools/gen_proto.py
	touch $@

setup: $(GEN) ## create .venv, install dependencies, generate protobuf code

proto: $(STAMP) ## render the games' protos from their dataclasses, then protobuf, gRPC and Connect (HTTP edge) code into gen/
	$(PY) tools/gen_game_protos.py
	$(PY) tools/gen_proto.py
	touch $(GEN)

run: $(GEN) ## run the whole stack, gRPC gateway :50051 and HTTP edge :8080 (REDIS_URL unset: an embedded durable server on TABLETOP_DATA_DIR, default .data; TABLETOP_EMBEDDED_CLUSTER=3: a cluster)
	$(PY) -m deploy.local

test: $(GEN) web-node ## run the test suite (unit, rules, property samples, integration, browser)
	$(PY) -m pytest -q -p no:cacheprovider -m "not slow"

test-fast: $(GEN) ## run the tests that start no processes
	$(PY) -m pytest -q -p no:cacheprovider -m "not integration and not slow"

soak: $(GEN) ## long runs: thousands of random games per engine, soak and fault runs (kill -9 of the embedded server)
	SOAK=1 $(PY) -m pytest -q -p no:cacheprovider -m slow --timeout 7200

lint: $(GEN) ## ruff, mypy strict, proto style check
	$(PY) -m ruff check services gateway contract cli ops bots bootstrap tests tools deploy bench web/tools
	$(PY) -m mypy services gateway contract cli ops bots bootstrap
	$(PY) tools/proto_lint.py

bots-eval: $(GEN) ## search bots against random bots in process, every game: win rates with 95% Wilson intervals (BOTS_EVAL_GAMES, BOTS_EVAL_BUDGET, BOTS_EVAL_ONLY, BOTS_EVAL_JOBS)
	PYTHONHASHSEED=0 $(PY) -m bots.eval

bench: $(GEN) ## Both shapes, every game, 1/16/64 matches, 3 interleaved repetitions: CPU/action, p50/p99, actions/s as ratios to boardgame.io and the in-run floor, store calls/action, issue 28's targets (~10 min; BENCH_QUICK=1: shorter)
	$(PY) -m bench

profile: $(GEN) ## py-spy on one process under make bench's load (PROFILE_SHAPE inprocess, PROFILE_PROCESS gateway, PROFILE_MATCHES 16, PROFILE_SECONDS 15, PROFILE_GAME, PROFILE_NATIVE=1 for C frames): CPU per action, top functions; raw stacks in bench/results/
	$(PY) -m bench.profile

scale: $(GEN) ## K=1,2,4 replicas of every stateless tier on the embedded 3-master cluster, each capped at SCALE_CPU of a core (cgroups): actions/s, tickets/s (hot pool, 8 pools), efficiency, CPU/op, idle check; each rate the median of SCALE_REPEATS (3) runs; last line JSON (SCALE_SECONDS, SCALE_KS, SCALE_CPU, SCALE_LANES, SCALE_WORKLOADS; SCALE_FAULTS=1: kill -9 one replica per tier at K=4; root for caps)
	$(PY) -m bench.scale

golden: $(GEN) ## regenerate golden seeded playthroughs
	$(PY) -m tests.golden.regenerate

clean: ## remove the venv and generated code
	rm -rf $(VENV) gen web/node_modules web/artifacts

# npm ci only when package-lock.json changed; without npm the browser tests skip.
$(WEB_NODE): web/package.json web/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd web && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else echo "npm not found: the browser tests will skip (make web-deps)"; fi

web-node: ## install the web table's node packages when package-lock.json changed
	@$(MAKE) --no-print-directory $(WEB_NODE) || echo "npm ci failed: the browser tests will skip"

web-deps: ## install what the browser tests need: Debian's chromium (apt) and the node packages (npm ci)
	@if [ ! -x $(CHROMIUM) ]; then \
		if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
		else echo "install chromium (Debian: apt-get install chromium) for the browser tests"; exit 1; fi; \
	fi
	@command -v npm >/dev/null 2>&1 || { echo "install node and npm for the browser tests"; exit 1; }
	$(MAKE) --no-print-directory $(WEB_NODE)

web-fixtures: $(GEN) ## regenerate web/fixtures and web/dist/data from the engines (seeded random play)
	$(PY) web/tools/make_fixtures.py

web-shots: web-node ## screenshot every fixture in headless chromium into web/artifacts/
	node web/tests/render.mjs
