"""Old module paths keep importing for one release, as the very module that replaced them and
with a DeprecationWarning; the public short names import silently."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

import agents
import luckynumbers_env
import numberdrop_env

OLD_PATHS = sorted({**numberdrop_env.MOVED, **luckynumbers_env.MOVED, **agents.MOVED}.items())


@pytest.mark.parametrize("old, new", OLD_PATHS)
def test_an_old_path_is_the_new_module_with_a_warning(old, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated.*import {new} instead"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


@pytest.mark.parametrize("name", ["numberdrop_env.multiplayer_v0", "luckynumbers_env.lucky_numbers_v0"])
def test_public_short_names_import_without_a_warning(name):
    sys.modules.pop(name, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = importlib.import_module(name)
    assert module.env is importlib.import_module(name.replace("_env.", "_env.envs.")).env


def test_old_command_paths_run_silently():
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-m", "agents.evaluate", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "--agents" in done.stdout, done.stderr
