"""pyproject.toml and environment.yml pin the same versions."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pins(lines):
    pins = {}
    for line in lines:
        match = re.match(r"\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?==([^\s;]+)", line)
        if match:
            pins[match.group(1).lower()] = match.group(3)
    return pins


def test_environment_yml_agrees_with_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in ("book", "test", "dist", "dpsgd"):
        requirements += project["optional-dependencies"][extra]
    from_pyproject = _pins(requirements)
    from_conda = _pins(line.strip().lstrip("- ") for line in (ROOT / "environment.yml").read_text().splitlines())
    assert from_pyproject == from_conda


def test_readme_shows_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    assert "make book" in readme and "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()
