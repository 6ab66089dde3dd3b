"""Shared fixtures for terminal tests: a clean shell environment, reaped PTYs."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from herdr.terminal.pty import PtyProcess

SpawnPty = Callable[..., PtyProcess]


@pytest.fixture
def shell_env(tmp_path: Path) -> dict[str, str]:
    """A small predictable environment for programs in a PTY."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PS1": "$ ",
    }


@pytest.fixture
def spawn_pty(shell_env: dict[str, str]) -> Iterator[SpawnPty]:
    """``spawn_pty(argv, **kw)`` starts a PtyProcess that is torn down after the test."""
    started: list[PtyProcess] = []

    def spawn(argv: Sequence[str], **kwargs: Any) -> PtyProcess:
        kwargs.setdefault("env", shell_env)
        process = PtyProcess.spawn(argv, **kwargs)
        started.append(process)
        return process

    yield spawn
    for process in started:
        process.terminate(grace=0.5)
