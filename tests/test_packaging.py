"""The wheel carries every data file the package reads, and nothing from a cache."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "herdr"


def _globs() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(config["tool"]["setuptools"]["package-data"]["herdr"])


def _data_files() -> list[str]:
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    )


def test_every_data_file_is_package_data() -> None:
    # Path.glob as setuptools reads the patterns: `*` never crosses a directory
    shipped = {
        path.relative_to(PACKAGE).as_posix()
        for glob in _globs()
        for path in PACKAGE.glob(glob)
        if path.is_file()
    }
    assert [f for f in _data_files() if f not in shipped] == []


def test_no_glob_takes_a_bytecode_cache() -> None:
    # setuptools warns (and ships the .pyc files) when a glob reaches __pycache__
    for glob in _globs():
        assert not fnmatch.fnmatchcase("integrations/__pycache__/files.cpython-311.pyc", glob)
        assert not fnmatch.fnmatchcase("detect/__pycache__/agents.cpython-311.pyc", glob)


def test_the_license_is_a_spdx_expression() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["project"]["license"] == "MIT"  # a table is deprecated (setuptools >= 77)
