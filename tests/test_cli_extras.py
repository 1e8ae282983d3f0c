"""A subcommand whose module cannot be imported is still listed, and running it is a one-line error that names
what is missing (and the extra that installs it) instead of the command silently disappearing."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from accountlib import cli
from cli_runs import run_main

ROOT = Path(__file__).resolve().parents[1]
#: Import names whose distribution is named otherwise.
_DISTRIBUTION = {"sklearn": "scikit-learn"}


def test_a_sweep_module_that_fails_to_import_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "accountlib.cli.sweep", None)  # its import now raises ImportError
    result = run_main("sweep", "dhc", "--pairs", "13", "13", "--out", "unused")
    assert result.returncode == 2 and not result.stdout
    assert result.stderr.startswith("error: the sweep command is unavailable: importing it failed (")
    assert len(result.stderr.splitlines()) == 1 and "reinstall accountlib" in result.stderr
    for args in (("sweep",), ("sweep", "--help")):
        assert run_main(*args).stderr == result.stderr
    assert "sweep" in run_main("--help").stdout
    assert run_main("delta", "--pair", "13", "13", "--eps", "26").returncode == 0  # the other commands still run


def test_a_missing_optional_package_names_its_extra():
    message = cli._unavailable("sweep", ModuleNotFoundError("No module named 'torch'", name="torch"))
    assert message.endswith("install the 'dpsgd' extra: pip install 'accountlib[dpsgd]'"), message
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for module, extra in cli.EXTRA_OF_MODULE.items():
        names = {canonicalize_name(Requirement(r).name) for r in extras[extra]}
        names |= {canonicalize_name(x) for r in extras[extra] for x in Requirement(r).extras}  # dask[distributed]
        assert canonicalize_name(_DISTRIBUTION.get(module, module)) in names, (module, extra)
