"""Every chapter is a jupytext percent script paired with an executed notebook, in sync."""

from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


def test_there_are_chapters():
    assert SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_pair_in_sync_and_executed(script):
    paired = script.with_suffix(".ipynb")
    assert paired.is_file(), f"{paired.name} is missing: run jupytext --sync --execute {script.name}"
    source = jupytext.read(script)
    stored = nbformat.read(paired, as_version=4)
    strip = lambda nb: [(c.cell_type, c.source.strip()) for c in nb.cells]
    assert strip(source) == strip(stored), f"{script.name} and {paired.name} differ: re-sync the pair"
    code = [c for c in stored.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), f"{paired.name} is not fully executed"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_first_code_cell_is_tagged_parameters(script):
    first = next(c for c in jupytext.read(script).cells if c.cell_type == "code")
    assert "parameters" in first.metadata.get("tags", [])


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_chapter_is_in_the_table_of_contents(script):
    assert f"notebooks/{script.stem}" in (ROOT / "_toc.yml").read_text()


def toc_chapter_numbers() -> dict[str, int]:
    """{file: chapter number} for every chapter of a numbered part of ``_toc.yml``, pages included: the book numbers
    its chapters in this order, across parts."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    numbers, number = {}, 0
    for part in toc.get("parts", []):
        if not part.get("numbered"):
            continue
        for entry in part.get("chapters", []):
            number += 1
            numbers[entry["file"]] = number
    return numbers


def test_chapter_files_are_named_by_their_place_in_the_book():
    """A teacher's "open notebook 10" is chapter 10: the NN_ of each chapter's source is its chapter number."""
    numbers = toc_chapter_numbers()
    chapters = {file: n for file, n in numbers.items() if file.startswith("notebooks/")}
    assert len(chapters) == len(SCRIPTS)
    wrong = [f"{file}: chapter {n}" for file, n in chapters.items() if int(Path(file).name[:2]) != n]
    assert not wrong, "rename these sources (and every reference to them) to their chapter number:\n" + "\n".join(wrong)
