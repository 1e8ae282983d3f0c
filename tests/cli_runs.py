"""The command line run inside the test process, as ``python -m accountlib`` runs it (``accountlib/__main__.py``
is ``sys.exit(main())``), for the tests that call it many times: a child process per call would spend about
0.7 s importing. ``tests/library/test_cli.py`` still runs the entry point itself as a child process."""

from __future__ import annotations

import io
import subprocess
import warnings
from contextlib import redirect_stderr, redirect_stdout

from accountlib.cli import main

#: Warning categories a plain ``python -m accountlib`` does not print (Python's default filters).
_SILENT_BY_DEFAULT = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def run_main(*args) -> subprocess.CompletedProcess:
    """``main(ARGS)``: its exit status, stdout and stderr. Warnings the command would print are written to its
    stderr here too (pytest would otherwise collect them out of the tests' sight)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            status = main([str(a) for a in args])
        except SystemExit as exit_:  # --help, or a usage error argparse reports itself
            status = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
    for warning in caught:
        if not issubclass(warning.category, _SILENT_BY_DEFAULT):
            err.write(warnings.formatwarning(warning.message, warning.category, warning.filename, warning.lineno))
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


def assert_clean_error(status, out, err, fragment=""):
    """A command's bad-input answer: exit status 2, one line on stderr starting "error: " and holding ``fragment``,
    no traceback, nothing on stdout."""
    assert status == 2, (status, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err  # one line
    assert "Traceback" not in err and fragment in err, err
    assert out == ""
