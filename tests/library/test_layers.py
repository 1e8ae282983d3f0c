"""The library's shape: layers that import only downwards, no cycles, the library never importing the book's
package, real modules (no import hook), and an import of the front door that loads no book machinery.

The contracts live in pyproject.toml ([tool.importlinter]); ``lint-imports`` checks them on the source
(import statements anywhere in a module, including inside functions).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import accountlib

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("cli", "applications", "theory", "engine", "infrastructure")


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "3 kept, 0 broken" in result.stdout


def test_the_layers_are_visible_from_ls():
    folders = {p.name for p in (ROOT / "accountlib").iterdir() if (p / "__init__.py").is_file()}
    assert set(LAYERS) <= folders
    loose = {p.stem for p in (ROOT / "accountlib").glob("*.py")} - {"__init__", "__main__"}
    assert not loose, f"modules outside the layers: {sorted(loose)}"


def test_the_library_has_no_import_hook():
    for path in (ROOT / "accountlib").rglob("*.py"):
        assert "meta_path" not in path.read_text(), f"{path.relative_to(ROOT)} touches sys.meta_path"


def test_the_front_door_re_exports_its_names_explicitly():
    for name in accountlib.__all__:
        value = getattr(accountlib, name)
        module = getattr(value, "__module__", None)
        assert module is None or module.startswith("accountlib."), name
    assert "ShiftPair" in accountlib.__all__ and accountlib.Composition is accountlib.ShiftPair  # the former name
    # the table is the whole front door: a name outside it is an AttributeError, not a search
    with pytest.raises(AttributeError, match="no attribute 'tails'"):
        accountlib.tails
    assert set(accountlib.__all__) <= set(dir(accountlib))


def test_the_front_door_imports_a_module_only_when_one_of_its_names_is_used():
    """``import accountlib`` loads no numerics (numpy, mpmath, flint) and no layer; the first use of a name loads its
    module, and the CLI's ``delta`` loads neither the calibration module nor the census application."""
    code = ("import sys, json, accountlib; first = sorted(sys.modules); accountlib.Composition; "
            "print(json.dumps([first, sorted(sys.modules)]))")
    first, after = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                             cwd=ROOT, timeout=120).stdout)
    assert not {"numpy", "mpmath", "flint"} & set(first), sorted({"numpy", "mpmath", "flint"} & set(first))
    assert not [m for m in first if m.startswith("accountlib.")], [m for m in first if m.startswith("accountlib.")]
    assert "accountlib.theory.composition" in after and "accountlib.theory.calibration" not in after
    code = ("import sys, runpy; sys.argv = ['accountlib', 'delta', '--rho', '1/2', '1/3', '--eps', '1']\n"
            "try:\n    runpy.run_module('accountlib', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m == 'numpy.ma' or m.startswith(('accountlib.theory.calibration', "
            "'accountlib.applications'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         timeout=120).stdout
    assert out.strip().splitlines()[-1] == "[]", out


def test_importing_the_library_loads_no_book_machinery():
    code = ("import sys, json, accountlib, accountlib.cli, accountlib.applications.census; "
            "print(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))")
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                           cwd=ROOT, timeout=120).stdout))
    heavy = {"accountbook", "papermill", "nbformat", "matplotlib", "torch", "jupytext", "IPython", "plotly"}
    assert not loaded & heavy, sorted(loaded & heavy)


PRIVATE_IMPORT = __import__("re").compile(
    r"^\s*(from\s+[\w.]+\s+import\s+(\([^)]*\)|.*)|import\s+[\w.]+(\s+as\s+\w+)?)", __import__("re").MULTILINE)


def _private_imports(path: Path) -> list[str]:
    """The import statements of ``path`` that bring in a private name (``_x``) of another module, or that import a
    module under a private alias."""
    import re

    found = []
    for statement in PRIVATE_IMPORT.finditer(path.read_text(encoding="utf-8")):
        text = " ".join(statement.group(0).split())
        if text.startswith("from __future__"):
            continue
        names = text.split(" import ", 1)[1] if " import " in text else text
        if re.search(r"(?<![\w.])_[a-z]\w*", names.replace("(", " ").replace(")", " ")):
            found.append(f"{path.relative_to(ROOT)}: {text}")
    return found


def test_no_module_imports_another_modules_private_names():
    """The public/private line: no library module (nor the book's package, whose DP-SGD subpackage excepted) imports
    a name starting with an underscore from another module, or imports one under such a name."""
    files = sorted((ROOT / "accountlib").rglob("*.py")) + sorted(
        p for p in (ROOT / "book" / "accountbook").rglob("*.py") if "dpsgd" not in p.parts)
    found = [line for path in files for line in _private_imports(path)]
    assert not found, "\n".join(found)


def test_no_library_module_is_longer_than_700_lines():
    """One job per module: none of the library's modules grows past about 700 lines."""
    long = {p.relative_to(ROOT).as_posix(): n for p in (ROOT / "accountlib").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 700}
    assert not long, long


def test_every_public_name_of_the_library_has_a_docstring():
    """Module-level functions and classes not starting with an underscore, and their public methods."""
    import ast

    missing = []
    for path in sorted((ROOT / "accountlib").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                members = [node] + [m for m in node.body if isinstance(m, ast.FunctionDef)
                                    and not m.name.startswith("_")] if isinstance(node, ast.ClassDef) else [node]
                missing += [f"{path.relative_to(ROOT)}: {m.name}" for m in members if not ast.get_docstring(m)]
    assert not missing, missing


def test_the_command_lines_delta_on_a_release_loads_fewer_than_half_the_library():
    """``python -m accountlib delta --release pl94-persons`` imported 36 library modules before the command line had
    one module per command and the packages imported their modules on first use; 18 then, 19 since the command
    line's reading of what was typed (negative values, option names) left its package module for ``cli.typed``, 21
    since the smoothed engine's work meter (``engine.work``) and ``engine="auto"``'s choice (``theory.engine_choice``)
    left the front door and the composition for modules of their own."""
    code = ("import sys, runpy; sys.argv = ['accountlib', 'delta', '--release', 'pl94-persons', '--eps', '17.14']\n"
            "try:\n    runpy.run_module('accountlib', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m == 'accountlib' or m.startswith('accountlib.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         timeout=300).stdout
    loaded = json.loads(out.strip().splitlines()[-1].replace("'", '"'))
    assert len(loaded) <= 21, loaded
    assert not [m for m in loaded if m.startswith(("accountlib.engine.tails", "accountlib.engine.tilted",
                                                  "accountlib.theory.calibration", "accountlib.cli.calibrate"))]
