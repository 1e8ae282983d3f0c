"""The library's shape: layers that import only downwards, no cycles, the short names still working.

The contracts live in pyproject.toml ([tool.importlinter]); ``lint-imports`` checks them on the source
(import statements anywhere in a module, including inside functions).
"""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import accountlib

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("cli", "applications", "theory", "engine", "infrastructure")


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "2 kept, 0 broken" in result.stdout


def test_the_layers_are_visible_from_ls():
    folders = {p.name for p in (ROOT / "accountlib").iterdir() if (p / "__init__.py").is_file()}
    assert set(LAYERS) <= folders
    loose = {p.stem for p in (ROOT / "accountlib").glob("*.py")} - {"__init__", "__main__"}
    assert not loose, f"modules outside the layers: {sorted(loose)}"


@pytest.mark.parametrize("short, target", sorted(accountlib.MODULES.items()))
def test_short_names_are_the_layered_modules(short, target):
    by_attribute = getattr(accountlib, short)
    by_import = importlib.import_module(f"accountlib.{short}")
    real = importlib.import_module(f"accountlib.{target}")
    assert by_attribute is real and by_import is real
    assert real.__spec__.name == real.__name__ == f"accountlib.{target}"  # the alias leaves the module intact


def test_an_unknown_short_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        accountlib.nonsense  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("accountlib.nonsense")
