"""The book's execution cache is not trusted past a change to what the chapters read (book/_ext/execution_freshness.py):
a chapter cached before the library, the book's package or the stored results changed is executed again, and an
incremental build reads it again; one cached after every change is reused."""

import datetime
import importlib.util
import os
import types
from pathlib import Path

import nbformat
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("execution_freshness", ROOT / "book" / "_ext" / "execution_freshness.py")
freshness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(freshness)


def _tree(tmp_path: Path, when: float) -> Path:
    """A book root whose inputs were all last modified at ``when`` (seconds since the epoch)."""
    for name in ("accountlib/engine/front.py", "book/accountbook/data/table.csv", "results/dpsgd/a/run.json",
                 "results/ledger.json"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
        os.utime(path, (when, when))
    return tmp_path


def _cached_chapter(cache_path: Path, tmp_path: Path, name: str) -> None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"print('{name}')")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    get_cache(str(cache_path)).cache_notebook_bundle(CacheBundleIn(notebook, str(tmp_path / f"{name}.py")),
                                                     check_validity=False)


def test_a_cached_chapter_older_than_an_input_is_dropped_and_a_newer_one_kept(tmp_path):
    hour_ago = datetime.datetime.now(datetime.timezone.utc).timestamp() - 3600
    root = _tree(tmp_path / "book", hour_ago)
    cache_path = tmp_path / "cache"
    _cached_chapter(cache_path, tmp_path, "01_old")
    newest = freshness.newest_input(root)
    assert abs(newest.timestamp() - hour_ago) < 1
    assert freshness.drop_stale_executions(cache_path, newest) == []  # cached after the inputs: reused

    # a stored run arrives (a git pull): the chapter cached before it is executed again
    later = datetime.datetime.now(datetime.timezone.utc).timestamp() + 60
    os.utime(root / "results/dpsgd/a/run.json", (later, later))
    newest = freshness.newest_input(root)
    assert abs(newest.timestamp() - later) < 1
    assert [Path(uri).stem for uri in freshness.drop_stale_executions(cache_path, newest)] == ["01_old"]
    assert get_cache(str(cache_path)).list_cache_records() == []


def test_the_ledger_the_chapters_write_is_not_an_input(tmp_path):
    hour_ago = datetime.datetime.now(datetime.timezone.utc).timestamp() - 3600
    root = _tree(tmp_path / "book", hour_ago)
    os.utime(root / "results/ledger.json", (hour_ago + 1800, hour_ago + 1800))
    assert abs(freshness.newest_input(root).timestamp() - hour_ago) < 1


def test_a_chapter_read_before_the_newest_input_is_out_of_date_for_sphinx(tmp_path):
    now = datetime.datetime.now(datetime.timezone.utc).timestamp()
    root = _tree(tmp_path / "book", now)
    app = types.SimpleNamespace(srcdir=str(root), config=types.SimpleNamespace(nb_execution_mode="cache"))
    read_before, read_after = int((now - 60) * 1e6), int((now + 60) * 1e6)
    env = types.SimpleNamespace(
        all_docs={"notebooks/01_a": read_before, "notebooks/02_b": read_after, "book/ledger": read_before},
        doc2path=lambda docname: {"notebooks/01_a": "notebooks/01_a.py", "notebooks/02_b": "notebooks/02_b.py",
                                  "book/ledger": "book/ledger.md"}[docname])
    assert freshness.outdated_chapters(app, env, set(), set(), set()) == ["notebooks/01_a"]
