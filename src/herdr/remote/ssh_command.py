"""The ``ssh`` command lines herdr runs, built from plain values (no I/O).

Every connection to another machine is ``ssh [-F CONFIG] [ControlMaster options]
[-p PORT] [-l USER] HOST REMOTE_COMMAND``; the remote command finds ``herdr`` on the
remote PATH or its known install dirs (``~/.local/bin``, pipx's venvs), or answers
with one ``remote_herdr_missing`` error line in the API's envelope.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from herdr import PROTOCOL_VERSION
from herdr.remote.target import Target

# Known install dirs, after the remote PATH (pip --user, pipx's two layouts).
KNOWN_HERDRS = (
    "$HOME/.local/bin/herdr",
    "$HOME/.local/share/pipx/venvs/herdr/bin/herdr",
    "$HOME/.local/pipx/venvs/herdr/bin/herdr",
)
MISSING_CODE = "remote_herdr_missing"
MISSING_MESSAGE = "herdr is not installed on the remote machine (not on PATH, ~/.local/bin or pipx)"
MISSING_EXIT = 127
_MISSING_LINE = (
    '{"id":null,"error":{"code":"' + MISSING_CODE + '","message":"' + MISSING_MESSAGE + '"}}'
)
# POSIX sh, whatever the remote login shell is (the script is one quoted word to it).
LOCATE_SCRIPT = (
    'for h in "$(command -v herdr 2>/dev/null)" '
    + " ".join(f'"{p}"' for p in KNOWN_HERDRS)
    + '; do if [ -n "$h" ] && [ -x "$h" ]; then exec "$h" "$@"; fi; done; '
    + f"printf '%s\\n' '{_MISSING_LINE}'; exit {MISSING_EXIT}"
)
CONTROL_PERSIST_S = 60


def remote_herdr(words: Sequence[str], env: Mapping[str, str]) -> str:
    """The remote command running ``herdr WORDS`` (``$HERDR_REMOTE_HERDR`` overrides
    where herdr is: a command prefix such as ``/opt/herdr/bin/herdr``)."""
    override = env.get("HERDR_REMOTE_HERDR")
    if override:
        return f"{override} {shlex.join(words)}"
    return f"sh -c {shlex.quote(LOCATE_SCRIPT)} herdr {shlex.join(words)}"


def ssh_argv(
    target: Target,
    remote_command: str | None,
    *,
    config: str | None = None,
    control_dir: str | None = None,
    persist: bool = True,
    extra: Sequence[str] = (),
) -> list[str]:
    """``ssh`` for ``target``; with ``control_dir``, calls share one ControlMaster."""
    argv = ["ssh"]
    if config:
        argv += ["-F", config]
    if control_dir is not None:
        argv += ["-o", "ControlMaster=auto", "-o", f"ControlPath={control_dir}/%C"]
        if persist:
            argv += ["-o", f"ControlPersist={CONTROL_PERSIST_S}"]
    argv += [*extra, "-T", *target.ssh_args()]
    if remote_command is not None:
        argv.append(remote_command)
    return argv


def proxy_words(session: str | None, protocol: int | None = PROTOCOL_VERSION) -> list[str]:
    """``herdr api proxy [--session N] --expect-protocol P`` on the remote (the proxy
    refuses a server of another protocol, so the client need not ping first)."""
    words = ["api", "proxy", *(["--session", session] if session else [])]
    return [*words, "--expect-protocol", str(protocol)] if protocol is not None else words
