"""Every chapter, executed a second time on a second CPU, prints the same checked outputs and records the same
ledger.

The second CPU is this one with numpy's run-time-dispatched SIMD kernels switched off (``second_cpu``): float64
results then differ in their last bits, as between an AVX-512 and an AVX2 machine. A chapter must not raise
there, its cells tagged ``nbval-check-output`` must reproduce their stored outputs by the same nbval-lax rules
as the first run (``test_chapters``), and the ledger it writes (to a copy of ``results/ledger.json``, never the
tracked file) must say what the tracked ledger says: :func:`accountbook.ledger.record` keeps a record whose
verdict and texts are the same and whose values lie within their tolerances, so the copy stays unchanged.

This file is apart from ``test_chapters`` so that ``--dist loadfile`` may give it to the other worker.
"""

import copy
import json
import os

import nbformat
import pytest

import second_cpu
from chapter_runs import (LEDGER, chapter_outcome, execute_on_second_cpu, ledger_differences, longest_first,
                          output_differences)


@pytest.mark.parametrize("script", longest_first(), ids=lambda p: p.stem)
def test_chapter_on_a_second_cpu_reproduces_its_checked_outputs_and_ledger(script, tmp_path):
    if second_cpu.environment() is None:
        pytest.skip(second_cpu.describe())
    # the first execution of this run goes first: it brings the tracked ledger up to date for this chapter
    first = chapter_outcome(script)
    assert first["ok"], first["error"]
    outcome = execute_on_second_cpu(script, tmp_path / "results")
    assert outcome["ok"], outcome["error"]
    where = f"{script.name} on the second CPU, {outcome['dispatch']}"
    stored = nbformat.read(script.with_suffix(".ipynb"), as_version=4)
    problems = output_differences(outcome["notebook"], stored)
    assert not problems, f"{where}:\n" + "\n\n".join(problems)
    changed = ledger_differences(outcome["ledger_before"], outcome["ledger_after"])
    assert not changed, (f"{where} recorded other ledger entries than the tracked {LEDGER.name}:\n"
                         + "\n".join(changed))


def test_the_second_cpu_switches_off_every_dispatched_feature():
    features = second_cpu.cpu()
    assert set(features["found"]) <= set(features["dispatch"])
    env = second_cpu.environment({"KEEP": "1"})
    if not features["found"]:
        assert second_cpu.disabled_features() is None and env is None
        return
    assert second_cpu.disabled_features().split() == features["found"]
    assert env == {"KEEP": "1", second_cpu.VARIABLE: second_cpu.disabled_features()}
    assert second_cpu.environment()[second_cpu.VARIABLE] == second_cpu.disabled_features()
    # numpy accepts the value, and runs on its baseline only
    import subprocess
    import sys
    ask = ("import json; from numpy._core._multiarray_umath import __cpu_features__ as f, __cpu_dispatch__ as d; "
           "print(json.dumps([k for k in d if f.get(k)]))")
    answer = subprocess.run([sys.executable, "-c", ask], env=second_cpu.environment(), capture_output=True,
                            text=True, check=True)
    assert json.loads(answer.stdout) == []


def test_ledger_differences_name_the_records():
    before = json.dumps([{"id": "a", "ours": 1, "verdict": "pass"}, {"id": "b", "ours": 2}])
    after = json.dumps([{"id": "a", "ours": 1.5, "verdict": "fail"}, {"id": "c", "ours": 3}])
    assert ledger_differences(before, before) == []
    assert ledger_differences(before, after) == [
        "a: ours 1 -> 1.5; verdict 'pass' -> 'fail'", "b: removed", "c: added (verdict None, ours 3)"]


def test_a_chapter_that_depends_on_the_cpu_fails_there_naming_the_dispatch(tmp_path):
    """The check can fail: outputs, the ledger and a raising cell, each reported with the dispatch."""
    if second_cpu.environment() is None:
        pytest.skip(second_cpu.describe())
    script = tmp_path / "98_cpu.py"
    script.write_text(
        "# %% [markdown]\n# A chapter that prints its CPU\n\n"
        "# %% tags=[\"nbval-check-output\"]\n"
        "from numpy._core._multiarray_umath import __cpu_dispatch__ as d, __cpu_features__ as f\n"
        "found = [k for k in d if f[k]]\nprint(found)\n\n"
        "# %%\nfrom accountbook import ledger\n"
        "_ = ledger.record('cpu', source='derived here', basis='derived here', paper='0', ours=len(found), "
        "tolerance='exact')\n\n"
        "# %%\nif not found:\n    raise RuntimeError('baseline only')\n")
    tracked = tmp_path / "tracked" / "ledger.json"
    tracked.parent.mkdir()
    tracked.write_text(json.dumps([{"id": "cpu", "ours": len(second_cpu.cpu()["found"])}]))
    outcome = execute_on_second_cpu(script, tmp_path / "copy", ledger=tracked)
    assert not outcome["ok"] and outcome["error"].startswith(f"on the second CPU, {second_cpu.describe()}: ")
    assert "raised RuntimeError: baseline only" in outcome["error"]
    executed = outcome["notebook"]
    assert executed.cells[1].outputs[0].text == "[]\n"  # numpy ran on its baseline only
    stored = copy.deepcopy(executed)  # as the chapter was stored from a native run: the features it found
    stored.cells[1].outputs[0].text = f"{second_cpu.cpu()['found']}\n"
    problems = output_differences(executed, stored)
    assert [p.split(":")[0] for p in problems] == ["Cell 0"] and "[]" in problems[0]
    assert ledger_differences(outcome["ledger_before"], outcome["ledger_after"])[0].startswith("cpu: ")
    assert json.loads(tracked.read_text()) == [{"id": "cpu", "ours": len(second_cpu.cpu()["found"])}]  # untouched
