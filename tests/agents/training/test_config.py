"""The training configs: each trainer's schema beside it, read without torch or the planner,
and the names earlier configs used still read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.training.config import config_from_dict, load_config

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


@pytest.mark.slow
def test_reading_every_config_imports_no_engine_torch_or_planner():
    """Checking a YAML file is quick and names a missing extra before torch or Ray loads."""
    code = (
        "import json, sys\n"
        "from agents.training.config import load_config\n"
        f"for p in {[str(p) for p in CONFIGS]!r}:\n"
        "    load_config(p)\n"
        "heavy = ('numba', 'torch', 'stable_baselines3', 'ray', 'numberdrop_env', 'agents.values')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(heavy))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_the_schema_names_the_value_families():
    from agents.training.ntuple_config import FAMILIES
    from agents.values.ntuple import FAMILIES as VALUE_FAMILIES

    assert FAMILIES == VALUE_FAMILIES


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_each_schema_lies_beside_its_trainer(path):
    cfg = load_config(path)
    trainer = cfg.trainer_entry.partition(":")[0]
    assert type(cfg).__module__ in (f"{trainer}_config", f"{trainer.rpartition('.')[0]}.config")


def test_q_iteration_runs_locally_and_plays_as_q():
    """Q-iteration runs no SB3 algorithm: ``backend: local``; its network is the ``q`` agent.
    An earlier config's ``backend: sb3`` and ``ppo`` row still read."""
    cfg = config_from_dict({"algorithm": "q_iteration"})
    assert (cfg.backend, cfg.final_eval.agents, cfg.model_agent) == ("local", ["q", "random", "greedy"], "q")
    old = config_from_dict({"algorithm": "q_iteration", "backend": "sb3", "final_eval": {"agents": ["ppo", "greedy"]}})
    assert (old.backend, old.final_eval.agents) == ("local", ["q", "greedy"])
    with pytest.raises(ValueError, match="'rerank'"):
        config_from_dict({"algorithm": "rerank"})
