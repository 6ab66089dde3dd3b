"""A private tmux server running ``herdr --remote`` for the remote attach tests.

Each test's tmux server (``-L``) runs a script that sets the local environment (a
private HOME/XDG tree plus the loopback machine's ssh config), runs herdr with the
given arguments, then prints its exit code and ``stty -a`` (so a test can check the
terminal was left sane) and sleeps. Screens are read with ``capture-pane``.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from herdr_testing import wait_until
from herdr_testing.sshd import SshMachine

COLS, ROWS = 140, 40
TIMEOUT = 90.0  # a safety net on a loaded machine, never a speed assertion


class RemoteTui:
    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        self.name = f"herdr-remote-{os.getpid()}-{root.name}"
        self.env = {
            **env,
            "TERM": "tmux-256color",
            "LANG": "C.UTF-8",
            "SHELL": "/bin/sh",
        }
        self.script = root / "run.sh"
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in self.env.items())
        self.script.write_text(
            "#!/bin/sh\nunset TMUX HERDR_SESSION HERDR_SOCKET_PATH HERDR_PANE_ID HERDR_ENV\n"
            + exports
            + f'{shlex.quote(sys.executable)} -m herdr "$@"\n'
            + 'echo "HERDR-EXIT=$?"\n'
            + "stty -a | tr '\\n' ' '; echo\n"
            + "exec sleep 600\n"
        )
        self.script.chmod(0o755)
        self.started = False

    def tmux(self, *args: str) -> str:
        proc = subprocess.run(
            ["tmux", "-L", self.name, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if proc.returncode != 0:
            raise AssertionError(f"tmux {args}: {proc.stderr}")
        return proc.stdout

    def open(self, session: str, *herdr_args: str) -> None:
        base = ["new-session", "-d", "-s", session, "-x", str(COLS), "-y", str(ROWS)]
        command = " ".join(["exec", str(self.script), *map(shlex.quote, herdr_args)])
        self.tmux(*(["-f", "/dev/null"] if not self.started else []), *base, command)
        self.started = True

    def screen(self, session: str) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", session)

    def keys(self, session: str, *keys: str) -> None:
        self.tmux("send-keys", "-t", session, *keys)

    def type(self, session: str, text: str) -> None:
        self.tmux("send-keys", "-t", session, "-l", text)

    def wait_for(self, session: str, text: str, timeout: float = TIMEOUT) -> str:
        try:
            found = wait_until(
                lambda: (screen := self.screen(session)) and text in screen and screen,
                timeout=timeout,
                interval=0.1,
            )
        except TimeoutError:
            raise AssertionError(
                f"{text!r} never appeared; screen:\n{self.screen(session)}\n{self.logs()}"
            ) from None
        return str(found)

    def logs(self) -> str:
        """The attach's ssh logs (herdr's temp dirs), for a failure message."""
        import glob

        texts = [Path(p).read_text(errors="replace") for p in glob.glob("/tmp/herdr-r-*/ssh.log")]
        return "ssh logs: " + " | ".join(t.strip() for t in texts if t.strip())

    def close(self) -> None:
        with contextlib.suppress(AssertionError, subprocess.SubprocessError):
            self.tmux("kill-server")


@contextlib.contextmanager
def remote_tui(env: dict[str, str], machine: SshMachine) -> Iterator[RemoteTui]:
    """A :class:`RemoteTui` in a temp dir; afterwards its tmux server, the attach's ssh
    processes (a ControlMaster may outlive the TUI) and the dir are gone."""
    root = Path(tempfile.mkdtemp(prefix="hrt-", dir="/tmp"))
    tui = RemoteTui(root, {**env, **machine.client_env()})
    try:
        yield tui
    finally:
        tui.close()
        for pid in machine.ssh_clients():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)
