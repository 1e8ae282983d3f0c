"""Every run or code exercise, done as its text instructs: the chapter executed with the declared change.

See ``tests/exercise_runs.py`` for the declaration (``% change: name = value`` beside the exercise) and what each
execution must hold: no cell raises, the solution shows something else than at the default parameters, and the
repository is left as it was (no ledger written by a reader's run).
"""

from __future__ import annotations

import nbformat
import pytest

import exercise_runs
from exercise_runs import KINDS_WITH_A_CHANGE, all_executions, exercises, parameters_cell, read


@pytest.mark.parametrize("script", [
    pytest.param(script, marks=pytest.mark.xfail(strict=True, reason=exercise_runs.AWAITING_DECLARATIONS[script.stem]))
    if script.stem in exercise_runs.AWAITING_DECLARATIONS else script for script in exercise_runs.CHAPTERS],
    ids=lambda p: p.stem)
def test_every_run_and_code_exercise_declares_the_change_it_instructs(script):
    _, defaults = parameters_cell(read(script))
    problems = []
    for exercise in exercises(script):
        where = f"{script.name}, {exercise.label or exercise.title}"
        problems += [f"{where}: {p}" for p in exercise.problems]
        if exercise.kind not in KINDS_WITH_A_CHANGE:
            if exercise.changes:
                problems.append(f"{where}: a {exercise.kind!r} exercise declares a change (only run and code "
                                "exercises are executed with one)")
            continue
        if not exercise.changes:
            problems.append(f"{where}: a {exercise.kind} exercise without '% change: name = value' (the change of "
                            "the parameters cell it instructs)")
        if not exercise.solution_code:
            problems.append(f"{where}: its solution has no code, so nothing shows that it follows the change")
        for change in exercise.changes:
            for name, value in change.items():
                if name not in defaults:
                    problems.append(f"{where}: {name} is not set in the parameters cell (it sets "
                                    f"{', '.join(sorted(defaults))})")
                elif value == defaults[name]:
                    problems.append(f"{where}: {name} = {value!r} is the default, not a change")
    assert not problems, "\n".join(problems)


def test_the_declarations_are_read_as_written():
    """The parser itself: assignments, several per line, tuples as lists, and clear refusals."""
    assert exercise_runs.parse_change("sigma = 0.5") == {"sigma": 0.5}
    assert exercise_runs.parse_change('target_delta = "1e-15"; pair = (1, 1)') == {"target_delta": "1e-15",
                                                                                  "pair": [1, 1]}
    for bad, message in (("sigma 0.5", "not Python"), ("sigma = f(1)", "literal"), ("print(1)", "name = literal"),
                         ("", "empty")):
        with pytest.raises(ValueError, match=message):
            exercise_runs.parse_change(bad)


@pytest.mark.parametrize("execution", exercise_runs.half(0), ids=lambda e: e.name)
def test_the_exercise_holds_when_done_as_written(execution, tmp_path):
    """The first half of the executions; ``test_exercises_second_half.py`` holds the other (a file each, so that
    the two xdist workers share them)."""
    holds_when_done_as_written(execution, tmp_path)


def test_the_two_halves_hold_every_execution_once():
    names = [e.name for e in exercise_runs.half(0) + exercise_runs.half(1)]
    assert sorted(names) == sorted(e.name for e in all_executions()) and len(set(names)) == len(names)


def holds_when_done_as_written(execution, tmp_path):
    before = exercise_runs.repository_state()
    executed, seconds = exercise_runs.execute(execution, tmp_path)
    after = exercise_runs.repository_state()
    assert after == before, (f"{execution.name} changed the repository (a reader's run must write nowhere in it):\n"
                             f"before:\n{before}\nafter:\n{after}")
    stored = nbformat.read(execution.script.with_suffix(".ipynb"), as_version=4)
    for exercise in execution.exercises:
        changed = exercise_runs.solution_outputs(executed, exercise, executed=True)
        default = exercise_runs.solution_outputs(stored, exercise, executed=False)
        assert changed != default, (f"{exercise.label}: its solution shows the same with "
                                    f"{execution.changes} as at the default parameters: it does not follow the "
                                    "change the exercise asks for")
    print(f"{execution.name}: {seconds:.1f} s")
