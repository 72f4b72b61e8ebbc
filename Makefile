# Two entry points: `make train` (set up, then run the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RLLIB_STAMP := $(VENV)/.installed-rllib

.PHONY: train test bench demo clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[train,dev]"
	touch $(STAMP)

# the tests also cover the Ray backend and the tools of tests/test_integrations.py (TorchRL,
# Tianshou, SuperSuit): `make test` adds the `rllib` extra (about 0.55 GB) and the
# `integrations` one (about 76 MB, 5 s to install, 25 s of tests); `make train` stays without them
$(RLLIB_STAMP): $(STAMP) pyproject.toml
	$(BIN)/pip install --quiet -e ".[train,dev,rllib,integrations]"
	touch $(RLLIB_STAMP)

train: $(STAMP)
	$(BIN)/python train.py --config configs/ppo_turn.yaml

test: $(RLLIB_STAMP)
	$(BIN)/python -m pytest

demo: $(STAMP)
	$(BIN)/python -m agents.play --agent greedy --seed 0

bench: $(STAMP)
	$(BIN)/python -m benchmarks.throughput

clean:
	rm -rf $(VENV) runs
