"""Make sure the remote machine has herdr and a running server before attaching.

``herdr api ensure-server`` runs there through the locator of
:mod:`herdr.remote.ssh_command`; when herdr is missing, an interactive run offers to
install the same version (``python3 -m pip install --user herdr==VERSION``, or pipx
when the remote python has no pip); a non-interactive run fails with
``remote_herdr_missing``. ``$HERDR_REMOTE_INSTALL_SPEC`` replaces the pip spec (a
path to a checkout, a wheel, a VCS URL...).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Mapping

from herdr import PROTOCOL_VERSION, __version__
from herdr.cli import jsonlite
from herdr.remote.link import Link
from herdr.remote.ssh_command import MISSING_CODE, MISSING_EXIT

INSTALL_TIMEOUT_S = 900.0


class RemoteError(Exception):
    """Attaching cannot go on; ``code`` is the error code reported."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def install_spec(env: Mapping[str, str]) -> str:
    return env.get("HERDR_REMOTE_INSTALL_SPEC") or f"herdr=={__version__}"


def install_script(spec: str) -> str:
    """POSIX sh: pip --user if the remote python3 has pip, else pipx, else say so."""
    quoted = shlex.quote(spec)
    return (
        "if python3 -m pip --version >/dev/null 2>&1; then "
        f"exec python3 -m pip install --user --quiet {quoted}; "
        f"elif command -v pipx >/dev/null 2>&1; then exec pipx install {quoted}; "
        "else echo 'herdr: the remote has neither python3 -m pip nor pipx' >&2; exit 3; fi"
    )


def ensure_remote(
    link: Link,
    session: str | None,
    *,
    with_config: bool,
    ask: Callable[[str], bool] | None,
) -> dict[str, object]:
    """The remote's ``ensure-server`` answer, installing herdr first if allowed.

    ``ask`` puts a yes/no question to the user; ``None`` means nobody can answer.
    """
    words = ["api", "ensure-server", *(["--session", session] if session else [])]
    if with_config:
        words.append("--with-config")
    proc = link.run(link.herdr(words), quiet=False)
    if proc.returncode == MISSING_EXIT and MISSING_CODE.encode() in proc.stdout:
        spec = install_spec(link.env)
        question = f"herdr is not installed on {link.label}; install {spec} there with pip --user?"
        if ask is None:
            raise RemoteError(
                MISSING_CODE,
                f"herdr is not installed on {link.label} (not on PATH, ~/.local/bin or pipx); "
                f"run `herdr --remote {link.label}` in a terminal to install {spec}, "
                "or install it there yourself",
            )
        if not ask(question):
            raise RemoteError(MISSING_CODE, f"herdr is not installed on {link.label}")
        installed = link.run(install_script(spec), timeout=INSTALL_TIMEOUT_S, quiet=False)
        if installed.returncode != 0:
            raise RemoteError(
                "remote_install_failed",
                f"installing {spec} on {link.label} failed (exit {installed.returncode})",
            )
        proc = link.run(link.herdr(words), quiet=False)
    if proc.returncode == 255:
        raise RemoteError("machine_unreachable", f"cannot reach {link.label} over ssh")
    if proc.returncode != 0:
        raise RemoteError(
            "remote_server_failed",
            f"herdr on {link.label} could not start its server (exit {proc.returncode})",
        )
    try:
        doc = jsonlite.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RemoteError("remote_server_failed", f"unreadable answer from {link.label}") from None
    if not isinstance(doc, dict) or doc.get("protocol") != PROTOCOL_VERSION:
        protocol = doc.get("protocol") if isinstance(doc, dict) else None
        raise RemoteError(
            "protocol_mismatch",
            f"herdr on {link.label} speaks protocol {protocol}, this client speaks "
            f"{PROTOCOL_VERSION}; install herdr=={__version__} there",
        )
    return doc


def ask_on_terminal(question: str) -> bool:
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    return answer in ("y", "yes")
