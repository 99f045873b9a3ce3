# Tabletop: `make run` runs the whole stack, `make test` runs the tests.
# Both set everything up on a fresh machine that has Python 3.11 and make.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PROTOS := $(shell find proto -name '*.proto' 2>/dev/null)
GEN    := gen/.generated

.DEFAULT_GOAL := help
.PHONY: help setup proto run test test-fast soak lint bench golden clean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	echo "$(CURDIR)/gen" > $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/tabletop-gen.pth
	touch $@

$(GEN): $(STAMP) $(PROTOS) tools/gen_proto.py
	$(PY) tools/gen_proto.py
	touch $@

setup: $(GEN) ## create .venv, install dependencies, generate protobuf code

proto: ## regenerate protobuf, gRPC and Connect (HTTP edge) code into gen/
	$(PY) tools/gen_proto.py
	touch $(GEN)

run: $(GEN) ## run the whole stack, gRPC gateway :50051 and HTTP edge :8080 (REDIS_URL unset: an embedded durable server on TABLETOP_DATA_DIR, default .data)
	$(PY) -m deploy.local

test: $(GEN) ## run the test suite (unit, rules, property samples, integration)
	$(PY) -m pytest -q -p no:cacheprovider -m "not slow"

test-fast: $(GEN) ## run the tests that start no processes
	$(PY) -m pytest -q -p no:cacheprovider -m "not integration and not slow"

soak: $(GEN) ## long runs: thousands of random games per engine, soak and fault runs (kill -9 of the embedded server)
	SOAK=1 $(PY) -m pytest -q -p no:cacheprovider -m slow --timeout 7200

lint: $(GEN) ## ruff, mypy strict, proto style check
	$(PY) -m ruff check services gateway tests tools deploy bench
	$(PY) -m mypy services gateway
	$(PY) tools/proto_lint.py

bench: $(GEN) ## load run through the gateway and engine speed, as ratios to in-run baselines
	$(PY) -m bench

golden: $(GEN) ## regenerate golden seeded playthroughs
	$(PY) -m tests.golden.regenerate

clean: ## remove the venv and generated code
	rm -rf $(VENV) gen
