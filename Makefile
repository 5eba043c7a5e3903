# fairshard: `make demo` runs the main job, `make test` the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
TORCH_SPEC ?= torch==2.13.0
BIN := $(VENV)/bin
STAMP := $(VENV)/.fairshard-installed

.PHONY: install test lint typecheck pytest demo bench faults clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH_SPEC)"
	$(BIN)/python -m pip install --quiet -e ".[dev,plot,demo]"
	touch $(STAMP)

install: $(STAMP)

lint: install
	$(BIN)/ruff check src tests benchmarks examples

typecheck: install
	$(BIN)/mypy

pytest: install
	$(BIN)/python -m pytest -p no:cacheprovider $(PYTEST_ARGS)

test: lint typecheck pytest

demo: install
	$(BIN)/fairshard demo $(DEMO_ARGS)

# The full fault matrix (long; every launch bounded, no process left behind):
# restarts with plain init_process_group vs init_elastic_process_group, then
# every family through node losses, shrinks and grows on two torchrun agents,
# then SIGKILLs of single ranks with relaunches 4 -> 3 -> 2.
faults: install
	nice timeout 1800 $(BIN)/python -m tests.fault.probe 3 --two-agents
	nice timeout 3600 $(BIN)/python -m tests.fault.elastic --cycles 2 --epochs 3 --families all --seed 3
	nice timeout 3600 $(BIN)/python -m tests.fault.controller --kills 2 --dataset-size 300 --families all --seed 13

bench: install
	$(BIN)/python benchmarks/bench_samplers.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
