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


# ---------------------------------------------------------------- configs by name
def test_a_shipped_config_is_found_by_name_from_any_folder(tmp_path, monkeypatch):
    from agents.training.config import CONFIGS, find_config, shipped_configs

    monkeypatch.chdir(tmp_path)  # an install's user: no configs/ folder here
    assert shipped_configs() == sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))  # the checkout's
    assert find_config("ntuple") == find_config("ntuple.yaml") == CONFIGS / "ntuple.yaml"
    assert load_config("ntuple_smoke").experiment == "ntuple_smoke"
    own = tmp_path / "ntuple.yaml"  # a file of that name here is a path, and wins
    own.write_text((CONFIGS / "ntuple_smoke.yaml").read_text())
    assert find_config("ntuple.yaml").resolve() == own and load_config("ntuple.yaml").experiment == "ntuple_smoke"


def test_a_config_neither_a_file_nor_a_name_lists_the_names(tmp_path, monkeypatch):
    from agents.training.config import find_config

    monkeypatch.chdir(tmp_path)
    for missing in ("configs/ntuple.yaml", "nope", "nope.yaml"):
        with pytest.raises(FileNotFoundError, match=r"not found; the shipped configs, by name: .*\bntuple\b"):
            find_config(missing)


def test_the_package_links_the_checkout_configs():
    """``agents/configs`` is ``configs/`` (one copy of each YAML), so a config added there ships."""
    assert (ROOT / "agents" / "configs").resolve() == (ROOT / "configs").resolve()
