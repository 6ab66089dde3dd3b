"""``herdr --remote`` when the remote has no herdr: refuse without a terminal, install
with one (the "remote" is an isolated HOME with a python3 and pip but no herdr; the
install source is this checkout through ``HERDR_REMOTE_INSTALL_SPEC``, so no network).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr_testing import HerdrEnv, pings
from herdr_testing.remote_tui import remote_tui
from herdr_testing.sshd import REPO, SshMachine, ssh_machine, sshd_missing_reason

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sshd_missing_reason() is not None, reason=str(sshd_missing_reason())),
]
# A python3 with pip and no herdr: the interpreter this venv was made from.
BASE_BIN = str(Path(sys.base_prefix) / "bin")


@pytest.fixture
def bare(tmp_path: Path) -> Iterator[SshMachine]:
    if (Path(BASE_BIN) / "herdr").exists():
        pytest.skip(f"{BASE_BIN} has a herdr: it would not be missing")
    with ssh_machine(with_herdr=False, extra_path=BASE_BIN) as machine:
        yield machine


def test_missing_herdr_without_a_terminal_fails_clearly(
    herdr_env: HerdrEnv, bare: SshMachine
) -> None:
    done = herdr_env.cli("--remote", bare.target, env=bare.client_env(), input="")
    assert done.returncode == 1
    assert "remote_herdr_missing" in done.stderr
    assert "not installed" in done.stderr
    assert not (bare.remote_home / ".local" / "bin" / "herdr").exists()  # nothing installed
    assert not bare.remote_socket().exists()


def test_missing_herdr_for_machine_calls_is_one_error(
    herdr_env: HerdrEnv, bare: SshMachine
) -> None:
    done = herdr_env.cli("--machine", bare.target, "pane", "list", env=bare.client_env())
    assert done.returncode == 1
    assert json.loads(done.stderr.strip().splitlines()[-1])["error"]["code"] == (
        "remote_herdr_missing"
    )


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_interactive_install_then_attach(herdr_env: HerdrEnv, bare: SshMachine) -> None:
    env = {**herdr_env.env, "HERDR_REMOTE_INSTALL_SPEC": str(REPO)}
    with remote_tui(env, bare) as tui:
        tui.open("b", "--remote", bare.target)
        tui.wait_for("b", "[y/N]", timeout=60)
        assert str(REPO) in tui.screen("b")  # the spec it is about to install
        tui.type("b", "y")
        tui.keys("b", "Enter")
        tui.wait_for("b", " p1 ─", timeout=600)  # pip install, then the remote server
        installed = bare.remote_home / ".local" / "bin" / "herdr"
        assert installed.exists()
        assert pings(bare.remote_socket())
        tui.keys("b", "C-b", "d")
        assert "HERDR-EXIT=0" in tui.wait_for("b", "HERDR-EXIT=")
