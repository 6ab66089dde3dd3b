"""``herdr machine add|list|remove|default``: saved machines in machines.toml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from herdr_testing import HerdrEnv


def machines_file(herdr: HerdrEnv) -> Path:
    return Path(herdr.env["XDG_CONFIG_HOME"]) / "herdr" / "machines.toml"


def listing(herdr: HerdrEnv) -> list[dict[str, object]]:
    done = herdr.cli("machine", "list", "--json")
    assert done.returncode == 0, done.stderr
    machines: list[dict[str, object]] = json.loads(done.stdout)["machines"]
    return machines


def test_add_list_default_remove(herdr_env: HerdrEnv) -> None:
    assert listing(herdr_env) == []
    added = herdr_env.cli("machine", "add", "build", "ssh://me@127.0.0.1:2222")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout) == {
        "name": "build",
        "target": "ssh://me@127.0.0.1:2222",
        "default": True,  # the first machine becomes the default
    }
    assert herdr_env.cli("machine", "add", "vm", "devvm").returncode == 0
    assert [(m["name"], m["default"]) for m in listing(herdr_env)] == [
        ("build", True),
        ("vm", False),
    ]
    assert herdr_env.cli("machine", "default", "vm").returncode == 0
    assert [m["name"] for m in listing(herdr_env) if m["default"]] == ["vm"]
    assert herdr_env.cli("machine", "add", "x", "h", "--default").returncode == 0
    assert [m["name"] for m in listing(herdr_env) if m["default"]] == ["x"]
    assert herdr_env.cli("machine", "remove", "x").returncode == 0
    assert [(m["name"], m["default"]) for m in listing(herdr_env)] == [
        ("build", False),
        ("vm", False),
    ]
    assert machines_file(herdr_env).stat().st_mode & 0o077 == 0
    assert not list(machines_file(herdr_env).parent.glob("*.tmp"))


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (("machine", "add", "bad name", "h"), "invalid_machine_name"),
        (("machine", "add", "-x", "h"), None),  # argparse: an unknown option (exit 2)
        (("machine", "add", "ok", "-oProxyCommand=touch /tmp/p"), "invalid_target"),
        (("machine", "add", "ok", "me@-oProxyCommand=x"), "invalid_target"),
        (("machine", "add", "build", "other"), "machine_exists"),
        (("machine", "remove", "nope"), "machine_not_found"),
        (("machine", "default", "nope"), "machine_not_found"),
        (("--machine", "build", "machine", "list"), None),  # --machine has no meaning here
    ],
    ids=[
        "bad-name",
        "option-name",
        "option-target",
        "option-host",
        "duplicate",
        "remove-unknown",
        "default-unknown",
        "machine-flag",
    ],
)
def test_bad_input_gets_one_answer_and_changes_nothing(
    herdr_env: HerdrEnv, argv: tuple[str, ...], code: str | None
) -> None:
    assert herdr_env.cli("machine", "add", "build", "ssh://127.0.0.1:2222").returncode == 0
    before = machines_file(herdr_env).read_bytes()
    done = herdr_env.cli(*argv)
    if code is None:
        assert done.returncode == 2, done.stderr
        assert "usage" in done.stderr or "error" in done.stderr
    else:
        assert done.returncode == 1, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and json.loads(lines[0])["error"]["code"] == code
    assert done.stdout == ""
    assert machines_file(herdr_env).read_bytes() == before


def test_a_broken_machines_file_is_reported(herdr_env: HerdrEnv) -> None:
    path = machines_file(herdr_env)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("machines = [")
    done = herdr_env.cli("machine", "list")
    assert done.returncode == 1
    assert json.loads(done.stderr)["error"]["code"] == "invalid_machines_file"
    assert path.read_text() == "machines = ["


def test_list_on_a_terminal_marks_the_default(herdr_env: HerdrEnv) -> None:
    import os
    import pty
    import subprocess

    from herdr_testing import HERDR

    assert herdr_env.cli("machine", "add", "build", "h").returncode == 0
    leader, follower = pty.openpty()
    try:
        subprocess.run(
            [*HERDR, "machine", "list"], env=herdr_env.env, stdout=follower, check=True, timeout=30
        )
        text = os.read(leader, 4096).decode()
    finally:
        os.close(leader)
        os.close(follower)
    assert "* build" in text and "TARGET" in text
