"""The front door: every function and class ``accountlib`` re-exports has a runnable example in its docstring
(the doctests run in ``make test``; the book's API page shows them), and the API page lists every name."""

import importlib.util
import inspect
from pathlib import Path

import accountlib

ROOT = Path(__file__).resolve().parents[2]


def test_every_front_door_function_and_class_has_an_example():
    missing = [name for name in accountlib.__all__ if callable(getattr(accountlib, name))
               and ">>>" not in (inspect.getdoc(getattr(accountlib, name)) or "")]
    assert not missing, f"front-door names without a runnable example: {missing}"


def test_the_api_page_lists_every_name_with_its_docstring():
    spec = importlib.util.spec_from_file_location("api_page", ROOT / "book" / "_ext" / "api_page.py")
    page = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(page)
    html = page.api_html()
    for name in accountlib.__all__:
        assert f"id='api-{name}'" in html
    assert "&gt;&gt;&gt; e = accountlib.epsilon" in html or "&gt;&gt;&gt;" in html
