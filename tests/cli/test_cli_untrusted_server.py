"""The CLI refuses a socket served by another user, before it sends anything.

A squatter (uid 65534) binds ``HERDR_SOCKET_PATH`` in a sticky /tmp-like directory
and answers every connection with a convincing pong; every verb (the fast path, the
argparse path with its ping, ``status``, ``server stop``) and the start-or-attach path
of bare ``herdr`` must exit 1 naming the socket and the owner's uid, and the squatter
must receive zero bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator

import pytest

from herdr_testing import HERDR, HerdrEnv, wait_until
from herdr_testing.foreign_user import NEEDS_ROOT, NOBODY, Squatter, squatter

pytestmark = NEEDS_ROOT


@pytest.fixture
def squatted() -> Iterator[Squatter]:
    with squatter() as bait:
        yield bait


VERBS = [
    pytest.param(["pane", "list"], id="fast-path"),
    pytest.param(["workspace", "create", "--label", "x"], id="argparse-with-ping"),
    pytest.param(["pane", "run", "w1:p1", "id"], id="pane-run"),
    pytest.param(["status"], id="status"),
    pytest.param(["status", "server", "--json"], id="status-server-json"),
    pytest.param(["server", "stop"], id="server-stop"),
]


@pytest.mark.parametrize("argv", VERBS)
def test_verb_refuses_the_squatter(
    herdr_env: HerdrEnv, squatted: Squatter, argv: list[str]
) -> None:
    served = squatted.served()
    result = herdr_env.cli(*argv, env={"HERDR_SOCKET_PATH": str(squatted.path)})
    assert result.returncode == 1, result
    error = json.loads(result.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "server_untrusted"
    assert str(squatted.path) in error["message"]
    assert f"uid {NOBODY}" in error["message"]
    wait_until(lambda: squatted.served() > served, message="the squatter saw no connection")
    assert squatted.received() == b""


def test_bare_herdr_does_not_attach_to_the_squatter(
    herdr_env: HerdrEnv, squatted: Squatter
) -> None:
    """Start-or-attach: a squatter is neither "a server running" nor a reason to start one."""
    primary, secondary = os.openpty()
    try:
        proc = subprocess.Popen(
            [*HERDR],
            env={**herdr_env.env, "HERDR_SOCKET_PATH": str(squatted.path), "TERM": "xterm"},
            stdin=secondary,
            stdout=secondary,
            stderr=secondary,
            start_new_session=True,
        )
        os.close(secondary)
        secondary = -1
        output = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
        assert proc.wait(30) == 1
    finally:
        os.close(primary)
        if secondary >= 0:
            os.close(secondary)
    text = output.decode(errors="replace")
    assert "refusing the server at" in text
    assert str(squatted.path) in text
    assert f"uid {NOBODY}" in text
    assert squatted.received() == b""
    state = os.path.join(herdr_env.env["XDG_STATE_HOME"], "herdr")
    assert not os.path.exists(os.path.join(state, "launch.log")), "a server was started"


def test_session_list_does_not_count_a_squatted_session(herdr_env: HerdrEnv) -> None:
    """``session list`` reports a squatted default session as not running (no traceback)."""
    with squatter() as bait:
        config = os.path.join(herdr_env.env["XDG_CONFIG_HOME"], "herdr")
        os.makedirs(config, exist_ok=True)
        os.symlink(bait.path, os.path.join(config, "herdr.sock"))
        result = herdr_env.cli("session", "list", "--json")
        assert result.returncode == 0, result.stderr
        sessions = json.loads(result.stdout)
        default = next(s for s in sessions["sessions"] if s["default"])
        assert default["running"] is False
        assert bait.received() == b""
