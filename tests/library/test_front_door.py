"""The front door: every function and class ``accountlib`` re-exports has a runnable example in its docstring
(the doctests run in ``make test``; the book's API page shows them), and the API page lists every name."""

import importlib.util
import re
import inspect
from pathlib import Path

import accountlib

ROOT = Path(__file__).resolve().parents[2]


def test_every_front_door_function_and_class_has_an_example():
    missing = [name for name in accountlib.__all__ if callable(getattr(accountlib, name))
               and ">>>" not in (inspect.getdoc(getattr(accountlib, name)) or "")]
    assert not missing, f"front-door names without a runnable example: {missing}"


def test_the_api_page_documents_every_name_and_every_layer():
    """The API page (book/_ext/api_page.py) is autodoc's: every front-door name links to its entry in the module that
    defines it, and every layer's public modules are documented (the re-export modules left out)."""
    spec = importlib.util.spec_from_file_location("api_page", ROOT / "book" / "_ext" / "api_page.py")
    page = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(page)
    text = page.api_markdown()
    for name in accountlib.__all__:
        if name not in page.FORMER_NAMES:
            module, attribute = accountlib._EXPORTS[name]
            assert f"`accountlib.{name} <{module}.{attribute}>`" in text, name
    documented = set(re.findall(r"\.\. automodule:: (\S+)", text))
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for p in (ROOT / "accountlib").rglob("*.py")} - {"accountlib.__main__"}
    former = {"accountlib.theory.profiles", "accountlib.theory.rdp", "accountlib.infrastructure.certified_numbers"}
    assert modules - former <= documented, sorted(modules - former - documented)