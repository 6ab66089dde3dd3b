"""The shared fixtures, registered once by ``tests/conftest.py`` through ``pytest_plugins``.

Tests import helpers and types from :mod:`herdr_testing` (importable through pytest's
``pythonpath`` setting), never from a ``conftest`` module: any folder, or any set of
folders, then collects and runs on its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from herdr_testing.servers import HerdrEnv, ServerHandle, herdr_tree


@pytest.fixture
def herdr_env() -> Iterator[HerdrEnv]:
    """A private HOME/XDG tree with no server running."""
    with herdr_tree() as herdr:
        yield herdr


@pytest.fixture
def herdr_server(herdr_env: HerdrEnv) -> ServerHandle:
    """A fresh headless server in its own private tree."""
    return ServerHandle(herdr_env, herdr_env.start_server())


@pytest.fixture(scope="module")
def shared_server() -> Iterator[ServerHandle]:
    """One server for a whole module (fuzzing and other read-mostly tests)."""
    with herdr_tree() as herdr:
        yield ServerHandle(herdr, herdr.start_server())
