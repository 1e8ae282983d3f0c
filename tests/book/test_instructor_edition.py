"""The two editions (book/_ext/instructor.py) on a scratch book of two tiny chapters, built in seconds.

Each chapter has an instructor-only ``{solution}``, an instructor-only gated ``{solution-start}`` …
``{solution-end}`` block holding a code cell, and a public solution. The public build must hold the
instructor-only text nowhere (pages, search index, downloadable sources) and show the note in its place,
while the gated solution's code still ran (its output is in the executed notebook); the instructor build,
from the same execution cache and executing nothing again, must hold every solution. The real book's
public build is checked the same way in ``test_rendered_pages.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _book_extension(name: str):
    """A module of book/_ext (the book's Sphinx extensions), loaded from its file (tests/book_extensions.py)."""
    from book_extensions import load

    return load(name)


instructor = _book_extension("instructor")  # book/_ext/instructor.py

JUPYTER_BOOK = Path(sys.executable).with_name("jupyter-book")

CHAPTER = '''\
# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Chapter {n}
#
# See {{numref}}`ex-{n}-plain` and {{numref}}`fig-{n}`.

# %% mystnb={{"figure": {{"caption": "A line.", "name": "fig-{n}"}}}}
import matplotlib.pyplot as plt
plt.plot([1, 2, 3])
plt.show()

# %% [markdown]
# ## Exercises
#
# ```{{exercise}} Plain (★, run)
# :label: ex-{n}-plain
#
# Do this.
# ```
#
# ```{{solution}} ex-{n}-plain
# :class: dropdown instructor-only
#
# Hiddenplainsolution{n} text, also long enough to be looked for.
# ```
#
# ```{{exercise}} Gated (★★, derive)
# :label: ex-{n}-gated
#
# Derive.
# ```
#
# ```{{solution-start}} ex-{n}-gated
# :class: dropdown instructor-only
# ```
#
# Hiddengatedprose{n} text, a line long enough to be looked for.

# %%
value = 40 + {n}
assert value == 40 + {n}
print("Hiddengatedoutput", value * 1000 + 7)

# %% [markdown]
# ```{{solution-end}}
# ```
#
# ```{{exercise}} Open (★★★, open)
# :label: ex-{n}-open
#
# Open.
# ```
#
# ```{{solution}} ex-{n}-open
# :class: dropdown
#
# Visiblesolution{n} text.
# ```
'''

CONFIG = f'''\
title: Scratch
only_build_toc_files: true
exclude_patterns: [_build]
execute:
  execute_notebooks: cache
parse:
  myst_enable_extensions: [dollarmath, colon_fence]
html:
  use_multitoc_numbering: true
sphinx:
  extra_extensions: [sphinx_exercise]
  local_extensions:
    instructor: {ROOT / "book" / "_ext"}
  config:
    nb_custom_formats:
      .py:
        - jupytext.reads
        - fmt: py:percent
'''

TOC = '''\
format: jb-book
root: intro
parts:
  - caption: One
    numbered: true
    chapters:
      - file: notebooks/c1
  - caption: Two
    numbered: true
    chapters:
      - file: notebooks/c2
  - caption: About
    chapters:
      - file: teachers
'''

HIDDEN = ["Hiddenplainsolution", "Hiddengatedprose", "Hiddengatedoutput", "41007", "42007", "value * 1000"]


def _build(book: Path, *extra: str, edition: str = "public") -> str:
    env = dict(os.environ, BOOK_EDITION=edition)
    result = subprocess.run([str(JUPYTER_BOOK), "build", str(book), "-W", "-n", "--keep-going", "-v", *extra],
                            capture_output=True, text=True, cwd=book, env=env, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return result.stdout + result.stderr


def _texts(html: Path) -> dict[str, str]:
    return {str(p.relative_to(html)): p.read_text(encoding="utf-8", errors="replace")
            for p in html.rglob("*") if p.is_file() and p.suffix in (".html", ".js", ".py", ".ipynb", ".txt")
            and "_static" not in p.parts}


@pytest.fixture(scope="module")
def scratch_book(tmp_path_factory):
    if not JUPYTER_BOOK.is_file():
        pytest.skip("jupyter-book is not installed beside this Python")
    book = tmp_path_factory.mktemp("scratch-book")
    (book / "notebooks").mkdir()
    for n in (1, 2):
        (book / "notebooks" / f"c{n}.py").write_text(CHAPTER.format(n=n), encoding="utf-8")
    (book / "intro.md").write_text("# Intro\n\nHello.\n", encoding="utf-8")
    (book / "teachers.md").write_text("# Teachers\n\n```{exercise-catalogue}\n```\n", encoding="utf-8")
    (book / "_config.yml").write_text(CONFIG, encoding="utf-8")
    (book / "_toc.yml").write_text(TOC, encoding="utf-8")
    public_log = _build(book)
    instructor_log = _build(book, "--path-output", str(book / "_build" / "instructor"), edition="instructor")
    return {"book": book, "public": book / "_build" / "html",
            "instructor": book / "_build" / "instructor" / "_build" / "html",
            "public_log": public_log, "instructor_log": instructor_log}


def test_public_edition_holds_no_instructor_only_solution(scratch_book):
    texts = _texts(scratch_book["public"])
    assert any(name.startswith("_sources") for name in texts)
    leaks = [f"{name}: {word}" for name, text in texts.items() for word in HIDDEN if word in text]
    assert not leaks, leaks
    for n in (1, 2):
        page = texts[f"notebooks/c{n}.html"]
        assert page.count(instructor.NOTE) == 2, f"c{n}: the note stands once for each instructor-only solution"
        assert f"Visiblesolution{n}" in page and f"Exercise {n}.3" in page
        assert f"Exercise {n}.1" in page and f"Fig. {n}.1" in page  # numbered per chapter
        source = texts[f"_sources/notebooks/c{n}.py"]
        assert "instructor-only" not in source and instructor.NOTE in source and f"Visiblesolution{n}" in source


def test_removed_code_still_ran_in_the_public_build(scratch_book):
    executed = (scratch_book["book"] / "_build" / "jupyter_execute" / "notebooks" / "c1.ipynb").read_text()
    assert "Hiddengatedoutput" in executed and "41007" in executed


def test_instructor_edition_holds_every_solution_and_executes_nothing_again(scratch_book):
    texts = _texts(scratch_book["instructor"])
    for n in (1, 2):
        page = texts[f"notebooks/c{n}.html"]
        for word in (f"Hiddenplainsolution{n}", f"Hiddengatedprose{n}", "Hiddengatedoutput",
                     str((40 + n) * 1000 + 7), f"Visiblesolution{n}"):
            assert word in page, f"c{n}: {word} missing from the instructor edition"
        assert instructor.NOTE not in page
    log = scratch_book["instructor_log"]
    assert log.count("Using cached notebook") == 2 and "Executing notebook" not in log, log[-3000:]


def test_teachers_table_lists_every_exercise_by_kind(scratch_book):
    page = _texts(scratch_book["public"])["teachers.html"]
    for n in (1, 2):
        for number in (1, 2, 3):
            assert f"Exercise {n}.{number}" in page
    assert page.count("instructor edition") >= 4 and page.count(">derive<") == 2 and page.count(">open<") == 2
    assert "Chapter 1" in page and "2 with the solution in the instructor edition only" in page


def test_stripping_a_notebook_keeps_everything_else():
    cells = [("markdown", "# T\n\n```{solution} ex-a\n:class: dropdown instructor-only\n\nsecret\n```\n\nafter"),
             ("code", "x = 1"),
             ("markdown", "```{solution-start} ex-b\n:class: instructor-only dropdown\n```\n\nsecret prose"),
             ("code", "secret = 2"),
             ("markdown", "more secret\n\n```{solution-end}\n```\n\nkept text"),
             ("markdown", "````{solution} ex-c\n:class: dropdown\n\n```python\nshown = 3\n```\n````")]
    removed: list[str] = []
    out = instructor.strip_instructor_solutions(cells, removed)
    text = "\n".join(source for _, _, source in out)
    assert "secret" not in text and all("secret" in line or not line.strip() or line.startswith(("```", ":class"))
                                        for line in removed)
    assert text.count(instructor.NOTE) == 2 and "after" in text and "x = 1" in text and "kept text" in text
    assert "shown = 3" in text and [index for index, _, _ in out] == [None, 1, None, None, 5]


def test_the_real_books_leak_check_finds_the_text_where_it_is(scratch_book):
    """test_rendered_pages.py's check on the real book, run on both scratch editions: it finds every
    distinctive line of the instructor-only solutions in the instructor edition and none in the public one."""
    sys.path.insert(0, str(Path(__file__).parent))
    import test_rendered_pages as rendered

    count, lines = rendered.instructor_only_lines(scratch_book["book"] / "notebooks" / "c1.py")
    assert count == 2 and len(lines) >= 2
    public = rendered._page_text((scratch_book["public"] / "notebooks" / "c1.html").read_text())
    full = rendered._page_text((scratch_book["instructor"] / "notebooks" / "c1.html").read_text())
    assert not [line for line in lines if line in public] and all(line in full for line in lines)
    assert public.count(instructor.NOTE) == count and full.count(instructor.NOTE) == 0
