"""``python -m agents.warmup``: the engine's warm-up, then the agents' kernels."""

from __future__ import annotations

from agents import warmup
from numberdrop_env import warmup as engine_warmup


def test_agents_warm_up_runs_the_n_tuple_value_after_the_engine(capsys):
    assert warmup.cli(["--only", "NumberDropTurn-v0 game,n-tuple value"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["NumberDropTurn-v0 game", "n-tuple value", "total"]
    assert "n-tuple value's lookups" in lines[1]


def test_the_registered_entry_point_is_the_agents_step():
    """pyproject.toml registers it for ``python -m numberdrop_env.warmup`` (once installed)."""
    from pathlib import Path

    import tomllib

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    registered = project["entry-points"][engine_warmup.EXTRA_GROUP]
    assert registered == {name: f"{run.__module__}:{run.__name__}" for name, run in warmup.STEPS}
