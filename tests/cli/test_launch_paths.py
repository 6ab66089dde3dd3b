"""The TUI's auto-start refuses a state directory another user controls, before it
writes its launch log there or starts a server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from herdr.cli import launch
from herdr.cli.main import CliError
from herdr_testing import HerdrEnv

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")


@needs_root
def test_foreign_state_dir_is_refused(herdr_env: HerdrEnv) -> None:
    state = Path(herdr_env.env["XDG_STATE_HOME"]) / "herdr"
    state.mkdir(parents=True)
    os.chown(state, 65534, 65534)
    with pytest.raises(CliError, match=rf"directory {state} has unsafe permissions"):
        launch.start_server(None, herdr_env.env)
    assert os.listdir(state) == []


def test_planted_launch_log_symlink_is_refused(herdr_env: HerdrEnv) -> None:
    state = Path(herdr_env.env["XDG_STATE_HOME"]) / "herdr"
    state.mkdir(parents=True, mode=0o700)
    victim = herdr_env.root / "victim"
    victim.write_text("precious\n")
    (state / "launch.log").symlink_to(victim)
    with pytest.raises(CliError, match=r"launch\.log is a symlink"):
        launch.start_server(None, herdr_env.env)
    assert victim.read_text() == "precious\n"
