"""The PettingZoo-style names users import reach one module in every form, with no import hook."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PUBLIC = [
    ("numberdrop_env", "multiplayer_v0", "numberdrop_env.envs.multiplayer_v0"),
    ("luckynumbers_env", "lucky_numbers_v0", "luckynumbers_env.envs.lucky_numbers_v0"),
]


@pytest.mark.parametrize("package, name, home", PUBLIC)
def test_every_form_of_a_public_name_is_the_one_module(package, name, home):
    as_attribute = getattr(importlib.import_module(package), name)
    as_module = importlib.import_module(f"{package}.{name}")
    assert as_attribute is as_module is importlib.import_module(home)
    assert callable(as_module.env) and callable(as_module.raw_env)


@pytest.mark.parametrize("package, name, home", PUBLIC)
def test_public_names_import_in_a_fresh_process(package, name, home):
    """``import a.b`` and ``from a.b import env`` resolve through sys.modules, not a finder."""
    code = f"import {package}.{name} as m; from {package}.{name} import env; assert m.env is env; print(m.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == home


def test_no_import_hook_is_installed():
    import agents  # noqa: F401 - importing every top package must leave sys.meta_path alone
    import luckynumbers_env  # noqa: F401
    import numberdrop_env  # noqa: F401

    assert not [f for f in sys.meta_path if type(f).__module__.split(".")[0] in {"gamekit", "agents", "numberdrop_env"}]


OLD = [
    "agents.evaluate",
    "agents.play",
    "numberdrop_env.turn_engine",
    "numberdrop_env.planner.turn_engine",
    "luckynumbers_env.rules",
]


@pytest.mark.parametrize("old", OLD)
def test_unreleased_old_paths_are_gone(old):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
