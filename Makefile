# Two entry points: `make train` (set up, then run the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
DOCS_STAMP := $(VENV)/.installed-docs
# the Material theme prints a banner about MkDocs 2.0 on every build; pyproject.toml caps mkdocs below 2
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs

.PHONY: train test test-fast lint docs bench bench-jax bench-first-use demo clean

# uv installs the dependencies in about 30 s where pip takes about 70 s. It does not read pip's
# configuration, so pip's find-links folders (where a machine keeps a wheel of torch's CPU build)
# are passed on; and it compiles the bytecode as pip does, without which every process of the
# tests (with PYTHONDONTWRITEBYTECODE set) would compile torch's and Ray's sources again
UV := $(BIN)/uv
FIND_LINKS := $(sort $(PIP_FIND_LINKS) $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null))
TORCH := torch==2.13.0
INSTALL := $(UV) pip install --quiet --compile-bytecode --python $(BIN)/python $(foreach f,$(FIND_LINKS),--find-links $(f))

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv

$(STAMP): pyproject.toml | $(UV)
	$(INSTALL) $(TORCH) -e ".[train,dev]"
	touch $(STAMP)

# the tests also cover the Ray backend and the tools of tests/test_integrations.py (TorchRL,
# Tianshou, SuperSuit): `make test` adds the `rllib` extra (about 0.55 GB), the `integrations`
# one (about 76 MB), the `web` one for the web app's tests (Starlette, uvicorn, Playwright
# driving the system's Chromium) and the `docs` one, in one install (one resolution, one pass
# compiling the bytecode: 26 s where three installs take 32 s); `make train` stays without them;
# the `jax` extra (JAX on the CPU, pgx) for the tests of numberdrop_env.functional
$(TEST_STAMP): pyproject.toml | $(UV)
	$(INSTALL) $(TORCH) -e ".[train,dev,rllib,integrations,web,docs,jax]"
	touch $(STAMP) $(DOCS_STAMP) $(TEST_STAMP)

train: $(STAMP)
	$(BIN)/python train.py --config configs/ntuple.yaml

# the documentation site: the `docs` extra (about 140 MB, mostly the Material theme and Babel) and
# `mkdocs build --strict` (about 2 s)
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(INSTALL) $(TORCH) -e ".[docs]"
	touch $(DOCS_STAMP)

# import contracts (pyproject.toml: the floors of each game, the games independent, engines free of
# Gymnasium and torch, no circles) and the linter on the packages it has been applied to so far
LINT := $(BIN)/lint-imports && $(BIN)/ruff check . && $(BIN)/ruff format --check .
lint: $(STAMP)
	$(LINT)

# the suite on every core (pytest-xdist); tests/conftest.py compiles numba's kernels once first
test: $(TEST_STAMP)
	$(LINT)
	$(MKDOCS) build --strict --quiet
	$(BIN)/python -m pytest -n auto --durations=20

# for daily work: without the tests marked slow (real training, many games) or integration (other libraries)
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n auto -m "not slow and not integration"

# build the site into site/ (as make test does), then serve it on http://127.0.0.1:8000 until Ctrl-C
docs: $(DOCS_STAMP)
	$(MKDOCS) build --strict
	$(MKDOCS) serve

demo: $(STAMP)
	$(BIN)/numberdrop-play --agent greedy --seed 0

bench: $(STAMP)
	$(BIN)/python -m benchmarks.throughput

# CPU seconds of a first step and a first agent game with numba's cache empty, and where compiling goes
# the JAX engine's random legal play at batch 1, 64, 1,024 and 8,192 beside NumberDrop-v0 (the jax extra)
bench-jax: $(TEST_STAMP)
	$(BIN)/python -m benchmarks.jax_speed

bench-first-use: $(STAMP)
	$(BIN)/python -m benchmarks.first_use

clean:
	rm -rf $(VENV) runs site
