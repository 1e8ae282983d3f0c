"""The second half of the exercises' executions (``tests/book/test_exercises.py`` holds the first half and says what
each must hold); a file of its own, so that pytest-xdist's ``--dist loadfile`` can run it on the other worker."""

import pytest

import exercise_runs
from test_exercises import holds_when_done_as_written


@pytest.mark.parametrize("execution", exercise_runs.half(1), ids=lambda e: e.name)
def test_the_exercise_holds_when_done_as_written(execution, tmp_path):
    holds_when_done_as_written(execution, tmp_path)
