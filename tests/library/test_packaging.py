"""Packaging: every import of accountlib (pyproject.toml) and of the book's package accountbook
(book/pyproject.toml) is declared, both declare version ranges, and requirements-lock.txt (what `make install`
and environment.yml install) pins each inside its range; the bare library installs into a fresh virtual
environment and its commands run there, and so does the dist extra."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from cli_runs import run_main
from lock_file import lock_lines

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements-lock.txt"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
BOOK_PROJECT = tomllib.loads((ROOT / "book" / "pyproject.toml").read_text())["project"]
#: package → (its folder, its project table, the first-party packages it may import)
PACKAGES = {"accountlib": (ROOT / "accountlib", PROJECT, {"accountlib"}),
            "accountbook": (ROOT / "book" / "accountbook", BOOK_PROJECT, {"accountbook", "accountlib"})}

#: The modules of a feature whose third-party imports come from an extra (each such import is inside a
#: function, so the bare package still imports them); every other module needs only its package's core.
FEATURE_EXTRAS = {
    "accountlib/applications/accountant.py": "accountant",
    "accountlib/applications/dpsgd_accountant.py": "accountant",
    "accountlib/applications/opacus_accountant.py": "opacus",
    "book/accountbook/dpsgd/data.py": "dpsgd",  # scikit-learn's digits
    "book/accountbook/dpsgd/training.py": "dpsgd",  # torch, opacus
    "book/accountbook/dpsgd/batched.py": "dpsgd",  # torch, opacus
    "book/accountbook/dpsgd/checkpoint.py": "dpsgd",  # torch (the saved state), numpy
    "book/accountbook/dpsgd/pooling.py": "dpsgd",  # torch
    "book/accountbook/dpsgd/jobs.py": "dpsgd",  # torch
    "book/accountbook/dpsgd/ablation.py": "dpsgd",  # torch
    "book/accountbook/dpsgd/exact.py": "dpsgd",  # torch
    "accountlib/infrastructure/executor.py": "dist",
}

#: Modules that are themselves optional — imported by no other module of their package, so the bare package
#: imports without their extra — may import their extra's packages at module level.
OPTIONAL_MODULES = {"accountlib/applications/accountant.py", "accountlib/applications/dpsgd_accountant.py",
                    "accountlib/applications/opacus_accountant.py"}

#: Import names whose distribution is named otherwise, for when the distribution is not installed here
#: (installed ones are looked up with importlib.metadata.packages_distributions()).
DISTRIBUTIONS = {"flint": "python-flint", "sklearn": "scikit-learn", "yaml": "pyyaml", "IPython": "ipython",
                 "websocket": "websocket-client", "dp_accounting": "dp-accounting"}


def _names(requirements) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in requirements}


def _make_extras(variable: str = "EXTRAS") -> list[str]:
    """The extras `make install` installs: the Makefile's EXTRAS (accountlib's) or BOOK_EXTRAS (accountbook's)."""
    match = re.search(rf"^{variable}\s*:=\s*(\S+)\s*$", (ROOT / "Makefile").read_text(), re.M)
    assert match, f"the Makefile names the extras it installs in {variable} := ..."
    return match.group(1).split(",")


def _installed_requirements() -> list[str]:
    """Every requirement `make install` installs: both projects' core and the extras the Makefile names
    (accountbook's dependency on accountlib itself excepted: it is installed from the checkout)."""
    requirements = list(PROJECT["dependencies"]) + [r for r in BOOK_PROJECT["dependencies"]
                                                     if canonicalize_name(Requirement(r).name) != "accountlib"]
    for extra in _make_extras():
        requirements += PROJECT["optional-dependencies"][extra]
    for extra in _make_extras("BOOK_EXTRAS"):
        requirements += BOOK_PROJECT["optional-dependencies"][extra]
    return requirements


def _lock() -> dict[str, str]:
    pins = {}
    for line in LOCK.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            assert canonicalize_name(name) not in pins, f"{name} is locked twice"
            pins[canonicalize_name(name)] = version
    return pins


def _third_party_imports(path: Path, local: set[str]):
    """(top-level module, at module level?) for every absolute import in ``path`` that is neither the standard
    library nor one of ``local``; imports inside functions (lazy imports) count, at module level False."""
    tree = ast.parse(path.read_text(), str(path))
    nested = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              for n in ast.walk(f) if n is not f}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [node.module]
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            if top not in sys.stdlib_module_names and top not in local and top != "__future__":
                yield top, id(node) not in nested


@functools.cache
def _installed_distributions() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distribution(module: str) -> str:
    installed = _installed_distributions().get(module)
    if installed:
        return canonicalize_name(installed[0])
    return canonicalize_name(DISTRIBUTIONS.get(module, module))


# --- every import declared -------------------------------------------------------------------------------


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_every_third_party_import_is_declared_where_its_feature_is(package):
    folder, project, local = PACKAGES[package]
    core = _names(project["dependencies"])
    extras = {extra: _names(reqs) for extra, reqs in project.get("optional-dependencies", {}).items()}
    assert all((ROOT / path).is_file() for path in FEATURE_EXTRAS), "FEATURE_EXTRAS names a module that is gone"
    undeclared, eager = [], []
    for path in sorted(folder.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        allowed = core | extras.get(FEATURE_EXTRAS.get(relative), set())
        for module, at_module_level in _third_party_imports(path, local):
            distribution = _distribution(module)
            if distribution not in allowed:
                where = f"the {FEATURE_EXTRAS[relative]} extra" if relative in FEATURE_EXTRAS else "the core dependencies"
                undeclared.append(f"{relative}: {module} ({distribution}) is not in {where} of {package}")
            elif at_module_level and distribution not in core and relative not in OPTIONAL_MODULES:
                eager.append(f"{relative}: {module} is imported at module level but is not a core dependency")
    assert not undeclared and not eager, "\n".join(undeclared + eager)


def test_optional_modules_are_imported_by_no_other_module():
    for optional in OPTIONAL_MODULES:
        name = optional.removesuffix(".py").replace("/", ".")
        leaf = name.rsplit(".", 1)[1]
        for path in (ROOT / "accountlib").rglob("*.py"):
            if path.relative_to(ROOT).as_posix() != optional:
                text = path.read_text()
                assert name not in text and f"import {leaf}" not in text and f".{leaf} import" not in text, path


def test_every_third_party_import_of_the_tests_is_in_what_make_install_installs():
    installed = _names(_installed_requirements())
    tests = sorted(p for p in (ROOT / "tests").rglob("*.py") if "data" not in p.relative_to(ROOT / "tests").parts)
    extensions = {p.stem for p in (ROOT / "book" / "_ext").glob("*.py")}  # the book's Sphinx extensions, tested in place
    local = {p.stem for p in tests} | extensions | {"accountlib", "accountbook", "tests"}
    missing = sorted({f"{path.relative_to(ROOT)}: {module} ({_distribution(module)})"
                      for path in [ROOT / "conftest.py", *tests]
                      for module, _ in _third_party_imports(path, local)
                      if _distribution(module) not in installed})
    assert not missing, "\n".join(missing)


# --- ranges, and the lock ----------------------------------------------------------------------------------


def test_both_packages_declare_ranges_not_pins():
    requirements = list(PROJECT["dependencies"]) + list(BOOK_PROJECT["dependencies"])
    for reqs in [*PROJECT["optional-dependencies"].values(), *BOOK_PROJECT["optional-dependencies"].values()]:
        requirements += reqs
    for text in requirements:
        requirement = Requirement(text)
        operators = {spec.operator for spec in requirement.specifier}
        assert ">=" in operators and not operators & {"==", "===", "~="}, f"{text}: a lower bound, not a pin"


def test_the_lock_pins_every_declared_dependency_inside_its_range():
    pins = _lock()
    problems = []
    for text in _installed_requirements():
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        if name not in pins:
            problems.append(f"{text}: not in requirements-lock.txt (run `make lock`)")
        elif not requirement.specifier.contains(pins[name], prereleases=True):
            problems.append(f"{text}: locked at {pins[name]}, outside the range")
        else:
            lower = [s.version for s in requirement.specifier if s.operator == ">="]
            if not lower or Version(lower[0]) != Version(pins[name]):
                problems.append(f"{text}: locked at {pins[name]}; the lower bound is the version tested")
    assert not problems, "\n".join(problems)


def test_the_lock_is_what_tests_lock_file_writes_and_this_environment_holds():
    lines = [line for line in LOCK.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert lines == lock_lines("\n".join(lines)), "sorted name==version lines, no local labels, no accountlib"
    pins = _lock()
    assert pins["torch"] == "2.13.0" and "'torch==2.13.0'" in (ROOT / "Makefile").read_text()
    stale = []
    for name, version in pins.items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            stale.append(f"{name}=={version}: not installed here")
            continue
        if Version(Version(installed).public) != Version(version):
            stale.append(f"{name}=={version}: {installed} installed here")
    assert not stale, "the lock is not the tested environment (run `make lock`):\n" + "\n".join(stale)


def test_make_install_and_environment_yml_install_from_the_lock():
    makefile = (ROOT / "Makefile").read_text()
    assert "-r requirements-lock.txt" in makefile and "--no-deps -e '.[$(EXTRAS)]' -e './book[$(BOOK_EXTRAS)]'" in makefile
    assert makefile.index("'torch==2.13.0'") < makefile.index("-r requirements-lock.txt")
    conda = [line.strip().removeprefix("- ") for line in (ROOT / "environment.yml").read_text().splitlines()
             if line.strip().startswith("- ")]
    assert "-r requirements-lock.txt" in conda
    assert f"-e .[{','.join(_make_extras())}]" in conda
    assert f"-e ./book[{','.join(_make_extras('BOOK_EXTRAS'))}]" in conda
    assert not [line for line in conda if "==" in line], "environment.yml pins nothing itself: the lock does"


def test_readme_shows_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    assert "make book" in readme and "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "requirements-lock.txt" in readme and "requirements-lock.txt" in (ROOT / "book" / "running.md").read_text()


# --- the bare package in a fresh virtual environment -------------------------------------------------------


def _commands() -> list[str]:
    from accountlib.cli import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.choices and a.dest == "command"]
    return sorted(sub.choices)


def _curves(folder: Path) -> dict[str, bytes]:
    """The pair files of a DHC sweep (not its log, which holds timings)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for kind in ("eps_delta", "tradeoff")
            for p in sorted((folder / kind).iterdir())}


DASK_SWEEP = '''
import sys
from distributed import LocalCluster
from accountlib.cli import main

if __name__ == "__main__":
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        sys.exit(main(["sweep", "dhc", "--pairs", "1", "1", "--out", sys.argv[1], "--no-progress",
                       "--scheduler", cluster.scheduler_address]))
'''


@pytest.mark.slow
def test_the_bare_package_installs_into_a_fresh_venv_and_its_commands_run_there(tmp_path):
    """No extras, from the lock's pins, in a venv that sees nothing of this one (not even a pip: this one's pip
    installs into it); then the dist extra in the same venv, and a sweep on a local Dask cluster. About 60 s,
    most of it pip unpacking numpy, scipy and dask."""
    source = tmp_path / "source"  # a copy, so that building the wheel leaves nothing in the checkout
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "accountlib", source / "accountlib",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    pip = [sys.executable, "-m", "pip", "--python", python, "--disable-pip-version-check"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}

    def run(*args, cwd=tmp_path):
        result = subprocess.run(list(map(str, args)), capture_output=True, text=True, cwd=cwd, env=env, timeout=600)
        assert result.returncode == 0, f"{args}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        return result

    # the wheel is built by this environment's setuptools, which meets pyproject's build-system requirement
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w",
        tmp_path / "wheel", source)
    (wheel,) = (tmp_path / "wheel").glob("accountlib-*.whl")
    run(*pip, "install", "--quiet", "-c", LOCK, wheel)
    installed = {canonicalize_name(line.split("==")[0]): line.split("==")[1]
                 for line in run(*pip, "freeze").stdout.splitlines() if "==" in line}
    core, pins = _names(PROJECT["dependencies"]), _lock()
    assert {name: installed.get(name) for name in core} == {name: pins[name] for name in core}
    assert "dask" not in installed and "matplotlib" not in installed and "pip" not in installed
    run(*pip, "check")
    assert run(python, "-c", "import accountlib; print(accountlib.__file__)").stdout.startswith(str(venv))

    for command in [[], *([c] for c in _commands())]:
        assert "usage:" in run(python, "-m", "accountlib", *command, "--help").stdout
    for command in (["delta", "--pair", "13", "13", "--eps", "27"], ["tradeoff", "--rho", "1/2", "1/3", "--alpha", "0.1"]):
        here = run_main(*command)
        assert here.returncode == 0, here.stderr
        assert run(python, "-m", "accountlib", *command).stdout == here.stdout
    here = run_main("sweep", "dhc", "--pairs", "1", "1", "--out", tmp_path / "here", "--workers", "1", "--no-progress")
    assert here.returncode == 0, here.stderr
    run(python, "-m", "accountlib", "sweep", "dhc", "--pairs", "1", "1", "--out", tmp_path / "bare")
    assert _curves(tmp_path / "bare") == _curves(tmp_path / "here")

    run(*pip, "install", "--quiet", "-c", LOCK, f"{wheel}[dist]")
    run(*pip, "check")
    (tmp_path / "dask_sweep.py").write_text(DASK_SWEEP)
    run(python, tmp_path / "dask_sweep.py", tmp_path / "dask")
    assert _curves(tmp_path / "dask") == _curves(tmp_path / "here")
