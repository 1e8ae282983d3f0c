"""Every chapter executes without error against the current library, and reproduces the outputs it stores
in the cells tagged ``nbval-check-output`` (nbval's ``--nbval-lax`` rules).

The execution is the one the book build renders (see ``chapter_runs``): each chapter runs once per test run.
"""

import nbformat
import pytest

from chapter_runs import (_SLOWEST_WHEN_UNKNOWN, CHAPTERS, chapter_outcome, execute_chapter, executed_notebook,
                          longest_first, output_differences, read_as_the_book_does)


@pytest.mark.parametrize("script", longest_first(), ids=lambda p: p.stem)
def test_chapter_runs_and_reproduces_its_checked_outputs(script):
    outcome = chapter_outcome(script)
    assert outcome["ok"], outcome["error"]
    stored = nbformat.read(script.with_suffix(".ipynb"), as_version=4)
    problems = output_differences(executed_notebook(script), stored)
    assert not problems, f"{script.name}:\n" + "\n\n".join(problems)


def test_the_order_for_a_fresh_clone_names_real_chapters():
    """The slowest chapters start first on a fresh clone (no recorded run yet): the hint must name chapters that
    exist (a renamed chapter would silently drop to the end)."""
    assert set(_SLOWEST_WHEN_UNKNOWN) <= {script.stem for script in CHAPTERS}


# --- the checks themselves can fail -------------------------------------------------------------------------

def _notebook(*cells):
    """A notebook of code cells given as (source, outputs, tags)."""
    notebook = nbformat.v4.new_notebook()
    for number, (source, outputs, tags) in enumerate(cells, 1):
        cell = nbformat.v4.new_code_cell(source, execution_count=number, metadata={"tags": list(tags)})
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text) for text in outputs]
        notebook.cells.append(cell)
    return notebook


def test_output_check_follows_nbval_lax_rules():
    stored = _notebook(("# NBVAL_CHECK_OUTPUT\nprint(1)", ["1\n"], ()),
                       ("print(2)", ["2\n"], ()),
                       ("print(3)", ["3\n"], ("nbval-check-output",)),
                       ("# NBVAL_IGNORE_OUTPUT\nprint(4)", ["4\n"], ("nbval-check-output",)))
    same = _notebook(("# NBVAL_CHECK_OUTPUT\nprint(1)", ["1\n"], ()),
                     ("print(2)", ["other\n"], ()),  # unchecked: may differ
                     ("print(3)", ["3", "\n"], ("nbval-check-output",)),  # streams are joined
                     ("# NBVAL_IGNORE_OUTPUT\nprint(4)", ["x\n"], ("nbval-check-output",)))  # comment wins
    assert output_differences(same, stored) == []
    changed = _notebook(("# NBVAL_CHECK_OUTPUT\nprint(1)", ["1.0\n"], ()),
                        ("print(2)", ["2\n"], ()),
                        ("print(3)", [], ("nbval-check-output",)),
                        ("# NBVAL_IGNORE_OUTPUT\nprint(4)", ["4\n"], ("nbval-check-output",)))
    problems = output_differences(changed, stored)
    assert [p.split(":")[0] for p in problems] == ["Cell 0", "Cell 2"]
    assert "1.0" in problems[0] and "print(1)" in problems[0]
    edited = _notebook(("print(1)  # edited", ["1\n"], ()))
    assert "re-sync" in output_differences(edited, _notebook(("print(1)", ["1\n"], ())))[0]


def test_a_raising_chapter_fails_by_name_and_cell_and_leaves_no_cache_entry(tmp_path):
    script = tmp_path / "99_broken.py"
    script.write_text("# %% [markdown]\n# A chapter\n\n# %%\nx = 1\n\n# %%\nprint(x)\nraise ValueError('boom')\n")
    cache = tmp_path / ".jupyter_cache"
    # an entry from an earlier run (say, before the library broke the chapter) must not survive
    from chapter_runs import _cache
    from jupyter_cache.base import CacheBundleIn
    with _cache(cache) as c:
        c.cache_notebook_bundle(CacheBundleIn(read_as_the_book_does(script), str(script)), check_validity=False)
    outcome = execute_chapter(script, cache)
    assert not outcome["ok"]
    assert outcome["error"].startswith("99_broken.py failed: cell 3 (code cell 1) raised ValueError: boom")
    assert "raise ValueError('boom')" in outcome["error"] and "\x1b[" not in outcome["error"]
    with _cache(cache) as c, pytest.raises(KeyError):
        c.match_cache_notebook(read_as_the_book_does(script))
    script.write_text(script.read_text().replace("raise ValueError('boom')", ""))
    assert execute_chapter(script, cache)["ok"]
    assert executed_notebook(script, cache).cells[2].outputs[0].text == "1\n"
