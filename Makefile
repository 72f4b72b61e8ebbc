# Two entry points: `make train` (set up, then run the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: train test bench demo clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[train,dev]"
	touch $(STAMP)

train: $(STAMP)
	$(BIN)/python train.py --config configs/ppo_turn.yaml

test: $(STAMP)
	$(BIN)/python -m pytest

demo: $(STAMP)
	$(BIN)/python -m agents.play --agent greedy --seed 0

bench: $(STAMP)
	$(BIN)/python -m benchmarks.throughput

clean:
	rm -rf $(VENV) runs
