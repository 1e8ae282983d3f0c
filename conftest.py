# Root conftest: keep pytest away from jupytext scripts (they are notebooks, not modules) and build output.
collect_ignore_glob = ["notebooks/*.py", "tests/data/*", "_build/*", "book/_ext/*", "book/*.md", "benchmarks/*", "results/*", ".venv/*"]
