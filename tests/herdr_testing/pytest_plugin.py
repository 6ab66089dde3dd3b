"""The shared fixtures, registered once by ``tests/conftest.py`` through ``pytest_plugins``.

Tests import helpers and types from :mod:`herdr_testing` (importable through pytest's
``pythonpath`` setting), never from a ``conftest`` module: any folder, or any set of
folders, then collects and runs on its own.

The test process itself runs in a private HOME (removed at the end), without the
runner's XDG dirs or terminal size, under umask 022: in-process code (the emulator's
FFI cache, config lookups) must not read or write the user's real home, programs in
panes must not draw for the terminal pytest runs in (``COLUMNS``/``LINES``), and the
directories tests make must not be group-writable because the user's umask is 002
(herdr refuses such directories for its state and cache).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from herdr_testing.servers import HerdrEnv, ServerHandle, herdr_tree
from herdr_testing.sshd import SshMachine, ssh_machine, sshd_missing_reason

TYPE_CHECKING = False
if TYPE_CHECKING:
    from herdr.remote.link import Link

MACHINE_VARS = (
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "COLUMNS",
    "LINES",
)
UMASK = 0o022
_SAVED = pytest.StashKey[tuple[str, int, dict[str, str | None]]]()


def pytest_configure(config: pytest.Config) -> None:
    home = tempfile.mkdtemp(prefix="herdr-test-home-")
    saved = {name: os.environ.get(name) for name in ("HOME", *MACHINE_VARS)}
    config.stash[_SAVED] = (home, os.umask(UMASK), saved)
    for name in MACHINE_VARS:
        os.environ.pop(name, None)
    os.environ["HOME"] = home


def pytest_unconfigure(config: pytest.Config) -> None:
    home, umask, saved = config.stash[_SAVED]
    os.umask(umask)
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    shutil.rmtree(home, ignore_errors=True)


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


@pytest.fixture(scope="module")
def sshd() -> Iterator[SshMachine]:
    """A real loopback sshd (another "machine", with herdr on its PATH) for a module."""
    reason = sshd_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    with ssh_machine() as machine:
        yield machine


@pytest.fixture
def ssh_link(sshd: SshMachine) -> Iterator[Link]:
    """An attach's ssh link (managed config, its own ControlMaster) to the loopback sshd."""
    from herdr.remote.link import Link

    opened = Link.open(sshd.target, {**os.environ, **sshd.client_env()}, managed=True)
    try:
        yield opened
    finally:
        opened.close()
