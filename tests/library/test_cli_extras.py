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

ROOT = Path(__file__).resolve().parents[2]
#: Import names whose distribution is named otherwise.
_DISTRIBUTION = {"sklearn": "scikit-learn"}


def test_a_sweep_target_that_fails_to_import_is_a_clear_error(monkeypatch):
    """The book's targets come from entry points (accountbook.sweeps): a broken one is listed and says why."""
    monkeypatch.setitem(sys.modules, "accountbook.sweeps", None)  # its import now raises ImportError
    result = run_main("sweep", "dpsgd", "--out", "unused")
    assert result.returncode == 2 and not result.stdout
    assert result.stderr.startswith("error: the sweep dpsgd command is unavailable: importing it failed (")
    assert len(result.stderr.splitlines()) == 1 and "reinstall the package that provides it" in result.stderr
    assert run_main("sweep", "dpsgd", "--help").stderr == result.stderr
    assert "dpsgd" in run_main("sweep", "--help").stdout
    assert run_main("delta", "--pair", "13", "13", "--eps", "26").returncode == 0  # the other commands still run


def test_the_book_targets_are_entry_points_and_the_library_never_imports_them():
    from importlib.metadata import entry_points

    from accountlib.cli.sweep import TARGETS_GROUP

    names = {p.name: p.value for p in entry_points(group=TARGETS_GROUP)}
    assert names == {"dpsgd": "accountbook.sweeps:add_dpsgd", "notebook": "accountbook.sweeps:add_notebook"}
    code = [line for line in (ROOT / "accountlib" / "cli" / "sweep.py").read_text().splitlines()
            if line.lstrip().startswith(("import ", "from "))]
    assert not [line for line in code if "accountbook" in line]


def test_a_missing_optional_package_names_its_extra():
    message = cli.unavailable("sweep dpsgd", ModuleNotFoundError("No module named 'torch'", name="torch"))
    assert message.endswith("install the 'dpsgd' extra: pip install 'accountbook[dpsgd]'"), message
    projects = {"accountlib": ROOT / "pyproject.toml", "accountbook": ROOT / "book" / "pyproject.toml"}
    for module, (package, extra) in cli.EXTRA_OF_MODULE.items():
        extras = tomllib.loads(projects[package].read_text())["project"]["optional-dependencies"]
        names = {canonicalize_name(Requirement(r).name) for r in extras[extra]}
        names |= {canonicalize_name(x) for r in extras[extra] for x in Requirement(r).extras}  # dask[distributed]
        assert canonicalize_name(_DISTRIBUTION.get(module, module)) in names, (module, extra)


def test_a_composition_refused_for_its_distinct_terms_is_named_in_the_option_terms(monkeypatch):
    """r37k R6: the refusal read "--rho: rhos has 3 distinct terms", the library's argument name inside the option's
    message."""
    from accountlib.infrastructure.numbers import reread_resource_limits
    from cli_runs import assert_clean_error, run_main

    monkeypatch.setenv("ACCOUNTLIB_MAX_DISTINCT_TERMS", "2")
    reread_resource_limits()
    try:
        done = run_main("tradeoff", "--rho", "1/2", "1/3", "1/5", "--alpha", "0.2", "0.5", "--json")
    finally:
        monkeypatch.delenv("ACCOUNTLIB_MAX_DISTINCT_TERMS")
        reread_resource_limits()
    assert_clean_error(done.returncode, done.stdout, done.stderr, "--rho: the composition has 3 distinct terms")
    assert "rhos" not in done.stderr and "ACCOUNTLIB_MAX_DISTINCT_TERMS" in done.stderr
