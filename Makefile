# fairshard: `make demo` runs the main job, `make test` the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
TORCH_SPEC ?= torch==2.13.0
BIN := $(VENV)/bin
STAMP := $(VENV)/.fairshard-installed

.PHONY: install test lint typecheck pytest demo bench clean

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

# Every benchmarks/bench_*.py, peers included where the [bench] extra installs them;
# a full run writes the README tables. `make bench BENCH_ARGS=--quick` takes minutes.
bench: install
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
