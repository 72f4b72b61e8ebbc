"""The expectimax sweep: configurations parse, rows pair with the agent without search, and a
resumed run plays only what it lacks."""

from __future__ import annotations

import json

import pytest

from agents.values.ntuple import NTupleSpec, NTupleValue
from benchmarks.expectimax import main, parse_config


def test_configurations_parse():
    assert parse_config("8x32") == (8, 32)
    assert parse_config("4xall") == (4, -1)
    with pytest.raises(ValueError, match="TOPxROLLS"):
        parse_config("8")


def test_the_sweep_pairs_and_resumes(tmp_path, capsys):
    value = tmp_path / "v.npz"
    NTupleValue(NTupleSpec(), planner_share=1.0).save(value)
    out = tmp_path / "sweep.json"
    args = ["--value", str(value), "--games", "2", "--limit", "16", "--inner-limit", "4", "--out", str(out)]
    first = main([*args, "--configs", "2x2"])
    (row,) = first["rows"]
    assert (row["top"], row["rolls"], row["games"]) == (2, 2, 2)
    assert row["base_mean"] == first["base"]["mean"]
    assert row["paired_diff"] == pytest.approx(row["mean"] - row["base_mean"])
    again = main([*args, "--configs", "2x2,3x1", "--resume"])
    assert again["rows"][0] == json.loads(json.dumps(row))  # kept, not played again
    assert (again["rows"][1]["top"], again["rows"][1]["rolls"], again["rows"][1]["games"]) == (3, 1, 2)
    assert json.loads(out.read_text())["rows"] == again["rows"]
    assert "top  3 rolls    1" in capsys.readouterr().out
