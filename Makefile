# fairshard: `make demo` runs the main job, `make test` the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
TORCH_SPEC ?= torch==2.13.0
BIN := $(VENV)/bin
# Two install levels in one venv: the demo needs torch + [demo] only (a fresh
# `make demo` does not pay for the test tools); the suite needs
# [dev,plot,demo,integrations,formats,docs] (the integrations extra: transformers, datasets and
# ray[train], about 700 MB, 20-40 s from a warm pip cache; docs: mkdocs, about 20 MB).
BASE_STAMP := $(VENV)/.fairshard-base
DEMO_STAMP := $(VENV)/.fairshard-demo
STAMP := $(VENV)/.fairshard-installed

.PHONY: install install-demo test lint typecheck pytest demo bench bench-check faults clean venv-torchft torchft-venv-or-skip test-floors test-floors-fast test-hook floors-venv floors-check dist test-dist docs

$(BASE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH_SPEC)"
	touch $(BASE_STAMP)

$(DEMO_STAMP): $(BASE_STAMP)
	$(BIN)/python -m pip install --quiet -e ".[demo]"
	touch $(DEMO_STAMP)

# `-e .` installs the linter too: fairshard ships the stdlib-only fairshard_lint package
# (lint/src, also a distribution of its own for a pre-commit hook without torch).
$(STAMP): $(BASE_STAMP) lint/pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[dev,plot,demo,integrations,formats,docs]" "$(TORCH_SPEC)"
	touch $(DEMO_STAMP) $(STAMP)

install: $(STAMP)

install-demo: $(DEMO_STAMP)

lint: install
	$(BIN)/ruff check src lint tests benchmarks examples
	$(BIN)/ruff format --check src lint tests benchmarks examples

typecheck: install
	$(BIN)/mypy

# `-m "not matrix"`: the fault jobs beyond make test's (every kind of the catalog, the
# elastic example's node loss) run in `make faults`. `-n $(PYTEST_WORKERS)` (pytest-xdist):
# most of the suite waits on launched ranks, so two workers keep two cores busy;
# PYTEST_WORKERS=0 runs it in one process.
PYTEST_WORKERS ?= 2
pytest: install
	$(BIN)/python -m pytest -p no:cacheprovider -m "not matrix" -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

# The floors venv installs (mostly downloads) while ruff and mypy run; the short
# floors check runs after the suite. Without a Python 3.10 it says so and is left out.
# The torchft venv (its in-suite job, a group killed and one joining) builds beside ruff and
# mypy too; where torchft cannot install, its tests skip and say so.
test: install
	$(MAKE) -j2 lint typecheck floors-venv torchft-venv-or-skip
	$(MAKE) pytest
	$(MAKE) floors-check

demo: install-demo
	$(BIN)/fairshard demo $(DEMO_ARGS)

# The full fault matrix (long; every launch bounded, no process left behind): a kill and
# a shrink for every kind of the catalog, restarts with plain init_process_group vs init_elastic_process_group, then
# every family through node losses, shrinks and grows on two torchrun agents,
# then SIGKILLs of single ranks with relaunches 4 -> 3 -> 2.
faults: install
	$(MAKE) $(TORCHFT_STAMP) || echo "faults: torchft did not install; its jobs are skipped"
	$(BIN)/python -m pytest -p no:cacheprovider -q -m matrix tests
	nice timeout 1800 $(BIN)/python -m tests.fault.probe 3 --two-agents
	nice timeout 3600 $(BIN)/python -m tests.fault.elastic --cycles 2 --epochs 3 --families all --seed 3
	nice timeout 3600 $(BIN)/python -m tests.fault.controller --kills 2 --dataset-size 300 --families all --seed 13

# Every benchmarks/bench_*.py, peers included where the [bench] extra installs them;
# a full run writes the README tables. `make bench BENCH_ARGS=--quick` takes minutes.
# mosaicml streaming (bench_cold's and bench_formats' peer) pins numpy<2.2, so it gets a venv
# of its own; so does litdata (bench_formats' peer): it requires torchvision, whose PyPI build
# does not load beside this torch, so it stays out of the main venv.
STREAMING_VENV ?= .venv-streaming
STREAMING_STAMP := $(STREAMING_VENV)/.fairshard-streaming

$(STREAMING_STAMP):
	$(PYTHON) -m venv $(STREAMING_VENV)
	$(STREAMING_VENV)/bin/python -m pip install --quiet "$(TORCH_SPEC)" "mosaicml-streaming>=0.13" "numpy<2.2"
	touch $(STREAMING_STAMP)

LITDATA_VENV ?= .venv-litdata
LITDATA_STAMP := $(LITDATA_VENV)/.fairshard-litdata

$(LITDATA_STAMP):
	$(PYTHON) -m venv $(LITDATA_VENV)
	$(LITDATA_VENV)/bin/python -m pip install --quiet "$(TORCH_SPEC)" "litdata>=0.2.76"
	touch $(LITDATA_STAMP)

# torchft (the [torchft] extra) in a venv of its own: its lighthouse and replica groups run
# tests/fault/torchft_job.py, which tests/integrations/test_integration_torchft.py drives from
# the main venv (it skips, saying so, without this venv). FAIRSHARD_TORCHFT_VENV points the
# tests at another one.
TORCHFT_VENV ?= .venv-torchft
TORCHFT_STAMP := $(TORCHFT_VENV)/.fairshard-torchft

$(TORCHFT_STAMP): pyproject.toml
	$(PYTHON) -m venv $(TORCHFT_VENV)
	$(TORCHFT_VENV)/bin/python -m pip install --quiet "$(TORCH_SPEC)"
	$(TORCHFT_VENV)/bin/python -m pip install --quiet -e ".[torchft]" "$(TORCH_SPEC)"
	touch $(TORCHFT_STAMP)

venv-torchft: $(TORCHFT_STAMP)

torchft-venv-or-skip:
	$(MAKE) $(TORCHFT_STAMP) || echo "test: torchft did not install; its jobs are skipped"

bench: install
	$(BIN)/python -m pip install --quiet -e ".[bench]" || echo "bench: some peers did not install; their cells are left out"
	$(MAKE) $(STREAMING_STAMP) || echo "bench: mosaicml streaming did not install; bench_cold and bench_formats leave its cells out"
	$(MAKE) $(LITDATA_STAMP) || echo "bench: litdata did not install; bench_formats leaves its cells out"
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

# Reruns README.md's headline cells (the batch and packing plans at 1e7, DistributedSampler
# and WeightedSampler against torch, StepSampler against Megatron's random sampler at 1e6
# and 1e8; 3 interleaved repeats, minutes) and prints each beside
# the README's figure with a verdict. Not part of `make test`; it writes nothing.
bench-check: install
	$(BIN)/python benchmarks/bench_check.py $(BENCH_CHECK_ARGS)

# The documented pre-commit hook, installed by pre-commit itself in a fresh environment
# (no torch; about a minute: a virtualenv and a package build, so not part of `make test`).
test-hook: install
	$(BIN)/python -m pip install --quiet "pre-commit>=3"
	FAIRSHARD_HOOK_TEST=1 $(BIN)/python -m pytest -p no:cacheprovider -q tests/diagnostics/test_lint_standalone.py

# The release: sdists and wheels of fairshard and fairshard-lint in dist/, their contents and
# metadata checked (twine check --strict), then installed into clean venvs outside the
# checkout (torch first) where the commands and every public name run
# (tests/packaging/dist.py; one to two minutes). test-dist runs the same as a test.
dist: install
	$(BIN)/python -m tests.packaging.dist --outdir dist

test-dist: install
	FAIRSHARD_DIST_TEST=1 $(BIN)/python -m pytest -p no:cacheprovider -q -n 0 tests/packaging/test_dist.py

# The documentation site in site/ (mkdocs + Material; API pages from the docstrings).
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The declared floors (pyproject: Python >= 3.10, torch >= 2.1, numpy >= 1.24),
# tested: the suite on the lowest versions, in a venv of its own. The
# integration tests are left out: torchdata, Lightning and accelerate releases
# that install beside torch 2.1 are not the ones the [dev] extra pins.
FLOORS_PYTHON ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/3.10*/bin/python3.10) python3.10)
FLOORS_SPEC ?= torch==2.1.2 numpy==1.24.4
FLOORS_VENV ?= .venv-floors

FLOORS_STAMP := $(FLOORS_VENV)/.fairshard-floors
# The fast check: the per-family contract suites, the goldens and frozen states.
FLOORS_FAST_TESTS ?= tests/samplers tests/batching tests/randomness \
	tests/families/test_golden_families.py tests/families/test_frozen.py

$(FLOORS_STAMP): pyproject.toml
	$(FLOORS_PYTHON) -m venv $(FLOORS_VENV)
	$(FLOORS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(FLOORS_VENV)/bin/python -m pip install --quiet $(FLOORS_SPEC)
	$(FLOORS_VENV)/bin/python -m pip install --quiet -e . pytest pytest-timeout pytest-xdist hypothesis "scipy<1.12" scikit-learn matplotlib fsspec pyarrow $(FLOORS_SPEC)
	$(FLOORS_VENV)/bin/python -c "import sys, numpy, torch; print('floors:', sys.version.split()[0], 'torch', torch.__version__, 'numpy', numpy.__version__)"
	touch $(FLOORS_STAMP)

# The floors check of `make test` (about 1 min of tests): the catalog's contract suite
# for every family, real gloo ranks, the collective rule, the goldens and frozen states.
FLOORS_CHECK_TESTS ?= tests/families/test_catalog.py tests/families/test_contract_catalog.py \
	tests/families/test_contract_distributed.py tests/families/test_golden_families.py \
	tests/families/test_frozen.py tests/core/test_collective_rule.py \
	tests/samplers/test_distributed_gloo.py tests/core/test_teardown.py
FLOORS_FOUND = $(shell command -v $(FLOORS_PYTHON))

floors-venv:
ifeq ($(FLOORS_FOUND),)
	@echo "floors: no $(FLOORS_PYTHON) on this machine; the floors check is left out (set FLOORS_PYTHON)"
else
	$(MAKE) $(FLOORS_STAMP)
endif

floors-check: floors-venv
ifneq ($(FLOORS_FOUND),)
	FAIRSHARD_FLOORS=1 $(FLOORS_VENV)/bin/python -m pytest -p no:cacheprovider -q -n $(PYTEST_WORKERS) $(FLOORS_CHECK_TESTS)
endif

test-floors: $(FLOORS_STAMP)
	FAIRSHARD_FLOORS=1 $(FLOORS_VENV)/bin/python -m pytest -p no:cacheprovider -q -n $(PYTEST_WORKERS) --ignore=tests/integrations $(PYTEST_ARGS)

test-floors-fast: $(FLOORS_STAMP)
	FAIRSHARD_FLOORS=1 $(FLOORS_VENV)/bin/python -m pytest -p no:cacheprovider -q $(FLOORS_FAST_TESTS) $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(FLOORS_VENV) $(STREAMING_VENV) $(LITDATA_VENV) $(TORCHFT_VENV) dist site .mypy_cache .ruff_cache .pytest_cache .hypothesis
