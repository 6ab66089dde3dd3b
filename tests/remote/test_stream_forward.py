"""``--machine`` over a stream-local forward on the ControlMaster, against a real sshd.

The forward is proven by taking ``ssh`` away: once it exists, a call with no ``ssh`` on
PATH still answers, so no ssh process (and no remote ``herdr api proxy``) ran for it.
The fallback is proven against an sshd with ``AllowStreamLocalForwarding no``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr.remote import forward
from herdr_testing import HERDR, HerdrEnv, request, wait_until
from herdr_testing.sshd import SshMachine, remote_pids, ssh_machine, sshd_missing_reason

pytestmark = pytest.mark.slow

NO_SSH = {"PATH": "/nonexistent"}  # python runs by absolute path; ssh cannot be found
ROOT_ONLY = pytest.mark.skipif(os.getuid() != 0, reason="needs root to chown to uid 65534")


@pytest.fixture(scope="module")
def remote(sshd: SshMachine) -> Iterator[SshMachine]:
    done = sshd.ssh("~/.local/bin/herdr api ensure-server")
    assert done.returncode == 0, done.stderr
    yield sshd


@pytest.fixture(scope="module")
def no_forwarding() -> Iterator[SshMachine]:
    """A machine whose sshd refuses stream-local forwarding (the proxy must serve)."""
    reason = sshd_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    with ssh_machine(sshd_extra="AllowStreamLocalForwarding no\n") as machine:
        done = machine.ssh("~/.local/bin/herdr api ensure-server")
        assert done.returncode == 0, done.stderr
        yield machine


@pytest.fixture
def short() -> Iterator[Path]:
    """A short private dir (ControlPath sockets must fit a Unix socket path)."""
    path = Path(tempfile.mkdtemp(prefix="hf-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def local_env(herdr: HerdrEnv, machine: SshMachine, control: Path) -> HerdrEnv:
    herdr.env.update(machine.client_env())
    herdr.env["HERDR_SSH_CONTROL_DIR"] = str(control)
    return herdr


def forward_socket(herdr: HerdrEnv, machine: SshMachine, session: str | None = None) -> Path:
    key = forward.route_key(machine.target, session, herdr.env)
    return Path(forward.local_path(herdr.env["HERDR_SSH_CONTROL_DIR"], key))


def ok(herdr: HerdrEnv, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = herdr.cli(*args, env=env)
    assert done.returncode == 0, f"{args}: {done.stderr}"
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def error_of(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert done.returncode == 1, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len([line for line in lines if line.startswith("{")]) == 1, done.stderr
    error: dict[str, str] = json.loads(lines[-1])["error"]
    return error


def master_pid(herdr: HerdrEnv, machine: SshMachine) -> int:
    control = herdr.env["HERDR_SSH_CONTROL_DIR"]
    done = subprocess.run(
        [
            *("ssh", "-F", str(machine.ssh_config), "-o", f"ControlPath={control}/%C"),
            *("-p", str(machine.port), "-O", "check", "127.0.0.1"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    found = re.search(r"pid=(\d+)", done.stderr)
    assert found, done.stderr
    return int(found.group(1))


def test_calls_go_through_the_forward_without_ssh(
    herdr_env: HerdrEnv, remote: SshMachine, short: Path
) -> None:
    local = local_env(herdr_env, remote, short / "ctl")
    there = request(remote.remote_socket(), "pane.list", {})["result"]["panes"]
    first = ok(local, "--machine", remote.target, "pane", "list")
    assert [p["pane_id"] for p in first["result"]["panes"]] == [p["pane_id"] for p in there]
    path = forward_socket(local, remote)
    info = path.lstat()
    assert path.is_socket() and info.st_uid == os.getuid() and info.st_mode & 0o077 == 0
    assert (short / "ctl").stat().st_mode & 0o777 == 0o700
    # no ssh can be started now, and the call is still answered: it went through the forward
    for args in (("pane", "list"), ("workspace", "list"), ("pane", "get", there[0]["pane_id"])):
        doc = ok(local, "--machine", remote.target, *args, env=NO_SSH)
        assert "result" in doc, doc
    # the sidebar's reader goes the same way
    from herdr.client.machines_probe import read_section

    section = read_section(remote.target, {**local.env, **NO_SSH})
    assert section.note == "" and section.workspaces, section
    # a remote error still comes back as the server's own answer, once
    assert (
        error_of(local.cli("--machine", remote.target, "pane", "get", "w9:p9", env=NO_SSH))["code"]
        == "pane_not_found"
    )


def test_sdk_client_uses_the_forward(herdr_env: HerdrEnv, remote: SshMachine, short: Path) -> None:
    local = local_env(herdr_env, remote, short / "ctl")
    ok(local, "--machine", remote.target, "workspace", "list")  # sets the forward up
    script = (
        "from herdr.api.client import Client\n"
        f"c = Client(machine={remote.target!r})\n"
        "print(c.ping()['protocol'], len(c.pane_list()['panes']))\n"
    )
    done = subprocess.run(
        [HERDR[0], "-c", script],
        env={**local.env, **NO_SSH},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "22"


def test_the_proxy_serves_when_sshd_refuses_forwarding(
    herdr_env: HerdrEnv, no_forwarding: SshMachine, short: Path
) -> None:
    local = local_env(herdr_env, no_forwarding, short / "ctl")
    there = request(no_forwarding.remote_socket(), "pane.list", {})["result"]["panes"]
    for _ in range(2):  # the refusal is found once, then remembered
        doc = ok(local, "--machine", no_forwarding.target, "pane", "list")
        assert [p["pane_id"] for p in doc["result"]["panes"]] == [p["pane_id"] for p in there]
    path = forward_socket(local, no_forwarding)
    assert not path.exists()
    assert Path(f"{path}.refused").exists()
    # without ssh nothing can answer: the calls above really went through the proxy
    code = error_of(local.cli("--machine", no_forwarding.target, "pane", "list", env=NO_SSH))
    assert code["code"] == "machine_unreachable"
    assert "refused" in no_forwarding.log_text() or "prohibited" in no_forwarding.log_text()


def test_forwarding_off_uses_the_proxy(
    herdr_env: HerdrEnv, remote: SshMachine, short: Path
) -> None:
    local = local_env(herdr_env, remote, short / "ctl")
    local.env[forward.OFF] = "0"
    ok(local, "--machine", remote.target, "pane", "list")
    assert not forward_socket(local, remote).exists()


def _symlinked_dir(tmp: Path) -> tuple[Path, str]:
    real = tmp / "real"
    real.mkdir(mode=0o700)
    (tmp / "link").symlink_to(real)
    return tmp / "link", "not a private directory"


def _foreign_dir(tmp: Path) -> tuple[Path, str]:
    path = tmp / "theirs"
    path.mkdir(mode=0o700)
    os.chown(path, 65534, 65534)
    return path, "not a private directory"


@pytest.mark.parametrize(
    "make",
    [_symlinked_dir, pytest.param(_foreign_dir, marks=ROOT_ONLY)],
    ids=["symlink", "foreign-owner"],
)
def test_a_control_dir_not_ours_is_refused(
    herdr_env: HerdrEnv, remote: SshMachine, short: Path, make: Any
) -> None:
    control, words = make(short)
    local = local_env(herdr_env, remote, control)
    error = error_of(local.cli("--machine", remote.target, "pane", "list"))
    assert error["code"] == "machine_unreachable" and words in error["message"]
    assert sorted(os.listdir(control)) == []  # nothing was made in it


def test_a_loose_control_dir_of_ours_is_tightened(
    herdr_env: HerdrEnv, remote: SshMachine, short: Path
) -> None:
    control = short / "ctl"
    control.mkdir(mode=0o755)
    control.chmod(0o755)
    local = local_env(herdr_env, remote, control)
    ok(local, "--machine", remote.target, "pane", "list")
    assert control.stat().st_mode & 0o777 == 0o700


def _plant_symlink(path: Path, target: Path) -> None:
    path.symlink_to(target)


def _plant_foreign_socket(path: Path, _target: Path) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.close()
    os.chown(path, 65534, 65534)


def _plant_file(path: Path, _target: Path) -> None:
    path.write_text("")


@pytest.mark.parametrize(
    "plant",
    [_plant_symlink, pytest.param(_plant_foreign_socket, marks=ROOT_ONLY), _plant_file],
    ids=["symlink", "foreign-socket", "regular-file"],
)
def test_a_planted_forward_socket_is_refused_not_followed(
    herdr_env: HerdrEnv, remote: SshMachine, short: Path, plant: Any
) -> None:
    control = short / "ctl"
    control.mkdir(mode=0o700)
    local = local_env(herdr_env, remote, control)
    path = forward_socket(local, remote)
    plant(path, remote.remote_socket())  # a symlink straight to the real server, even
    error = error_of(local.cli("--machine", remote.target, "pane", "list"))
    assert error["code"] == "machine_unreachable"
    assert "not a socket of ours" in error["message"]
    assert os.path.lexists(path)  # left as it was: never followed, never removed


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:["):
                inodes.add(link[len("socket:[") : -1])
    return inodes


def master_serves(master: int, client: int) -> bool:
    """Whether ``master`` holds an accepted connection whose peer is ``client``'s socket.

    Counting the master's fds is not enough: the mux sessions of the ``pane list`` and
    ``-O check`` just before close a little later (later still on a loaded machine)."""
    assert shutil.which("ss"), "ss (iproute2) is installed by .ci/run"
    peers = _socket_inodes(client)
    listing = subprocess.run(
        ["ss", "-xpnH"], capture_output=True, text=True, timeout=30, check=False
    ).stdout
    for line in listing.splitlines():
        fields = line.split()  # kind state recv-q send-q local inode peer peer-inode users
        if len(fields) >= 9 and f"pid={master}," in fields[8] and fields[7] in peers:
            return True
    return False


def test_killing_the_master_mid_wait_gives_one_error_then_reconnects(
    herdr_env: HerdrEnv, remote: SshMachine, short: Path
) -> None:
    local = local_env(herdr_env, remote, short / "ctl")
    pane = ok(local, "--machine", remote.target, "pane", "list")["result"]["panes"][0]["pane_id"]
    master = master_pid(local, remote)
    waiter = subprocess.Popen(
        [
            *HERDR,
            "--machine",
            remote.target,
            "pane",
            "wait-output",
            pane,
            *("--match", "never-printed-xyz", "--timeout", "60000"),
        ],
        env=local.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # the wait is held through the forward: the master holds its connection
        wait_until(
            lambda: master_serves(master, waiter.pid),
            timeout=20,
            message="the wait never reached the master",
        )
        os.kill(master, 9)
        out, err = waiter.communicate(timeout=60)
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()
    assert out == ""
    assert waiter.returncode == 1
    errors = [json.loads(line)["error"] for line in err.splitlines() if line.startswith("{")]
    assert [e["code"] for e in errors] == ["machine_unreachable"], err
    # the next call sets a new master and forward up by itself
    assert ok(local, "--machine", remote.target, "pane", "list")["result"]["panes"]
    assert master_pid(local, remote) != master


def test_a_stopped_server_behind_a_forward_is_server_not_running(
    herdr_env: HerdrEnv, remote: SshMachine, short: Path
) -> None:
    local = local_env(herdr_env, remote, short / "ctl")
    started = remote.ssh("~/.local/bin/herdr api ensure-server --session fw2")
    assert started.returncode == 0, started.stderr
    ok(local, "--machine", remote.target, "--session", "fw2", "pane", "list")
    assert forward_socket(local, remote, "fw2").is_socket()
    request(remote.remote_socket("fw2"), "server.stop", {})
    wait_until(lambda: not remote.remote_socket("fw2").exists(), timeout=20, message="stop")
    error = error_of(local.cli("--machine", remote.target, "--session", "fw2", "pane", "list"))
    assert error["code"] == "server_not_running"
    # the SDK (blocking and asyncio) says the same through the same forward
    script = (
        "import asyncio\n"
        "from herdr.api.client import AsyncClient, Client, HerdrError\n"
        f"t = {remote.target!r}\n"
        "try:\n"
        "    Client(machine=t, session='fw2').pane_list()\n"
        "except HerdrError as exc:\n"
        "    print(exc.code)\n"
        "async def run():\n"
        "    try:\n"
        "        await AsyncClient(machine=t, session='fw2').pane_list()\n"
        "    except HerdrError as exc:\n"
        "        print(exc.code)\n"
        "asyncio.run(run())\n"
    )
    done = subprocess.run(
        [HERDR[0], "-c", script],
        env=local.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.split() == ["server_not_running", "server_not_running"], done.stderr


def test_socket_path_names_the_session_and_its_server(herdr_env: HerdrEnv) -> None:
    none = json.loads(herdr_env.cli("api", "socket-path").stdout)
    assert none == {
        "socket_path": str(herdr_env.socket_path()),
        "server_protocol": None,
        "protocol": 22,
    }
    herdr_env.start_server()
    live = json.loads(herdr_env.cli("api", "socket-path").stdout)
    assert live["server_protocol"] == 22
    named = json.loads(herdr_env.cli("api", "socket-path", "--session", "s2").stdout)
    assert named["socket_path"] == str(herdr_env.socket_path("s2"))


def test_concurrent_first_calls_set_one_forward_up(
    herdr_env: HerdrEnv, remote: SshMachine, short: Path
) -> None:
    local = local_env(herdr_env, remote, short / "ctl")
    calls = [
        subprocess.Popen(
            [*HERDR, "--machine", remote.target, "workspace", "list"],
            env=local.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    answers = [call.communicate(timeout=60) for call in calls]
    assert [call.returncode for call in calls] == [0] * 4, answers
    assert all(json.loads(out)["result"]["workspaces"] for out, _err in answers)
    made = [p.name for p in (short / "ctl").glob("f-*.sock")]
    assert made == [forward_socket(local, remote).name]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_remote_attach_falls_back_to_the_relay_when_forwarding_is_refused(
    herdr_env: HerdrEnv, no_forwarding: SshMachine
) -> None:
    from herdr_testing.remote_tui import RemoteTui

    root = Path(tempfile.mkdtemp(prefix="hrt-", dir="/tmp"))
    tui = RemoteTui(root, {**herdr_env.env, **no_forwarding.client_env()})
    try:
        tui.open("nf", "--remote", no_forwarding.target)
        tui.wait_for("nf", " p1 ─", timeout=60)
        tui.type("nf", "echo relayed-$((4*4))")
        tui.keys("nf", "Enter")
        tui.wait_for("nf", "relayed-16")
        marker = f"HOME={no_forwarding.remote_env['HOME']}".encode()
        cmdlines = []
        for pid in remote_pids(marker):
            with contextlib.suppress(OSError):
                cmdlines.append(Path(f"/proc/{pid}/cmdline").read_bytes())
        assert [c for c in cmdlines if b"api\0proxy" in c]  # the relay's remote proxies
        tui.keys("nf", "C-b", "d")
        assert "HERDR-EXIT=0" in tui.wait_for("nf", "HERDR-EXIT=")
    finally:
        tui.close()
        shutil.rmtree(root, ignore_errors=True)


@ROOT_ONLY
@pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="no system python3")
def test_another_user_cannot_reach_the_forward(
    herdr_env: HerdrEnv, remote: SshMachine, short: Path
) -> None:
    local = local_env(herdr_env, remote, short / "ctl")
    ok(local, "--machine", remote.target, "pane", "list")
    path = forward_socket(local, remote)
    assert path.is_socket()
    short.chmod(0o755)  # only the control dir itself (0700) stands in the way
    probe = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n"
        "    s.connect(sys.argv[1])\n"
        "except OSError as exc:\n"
        "    print(type(exc).__name__)\n"
        "else:\n"
        "    print('connected')\n"
    )
    done = subprocess.run(
        ["/usr/bin/python3", "-c", probe, str(path)],
        user=65534,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        cwd="/",
    )
    assert done.stdout.strip() == "PermissionError", done.stderr
