"""Short ids as shown on screen (``p2``, ``t2``) accepted wherever a pane/tab id is taken.

Borders and the tab bar show a pane's or tab's number within its workspace; people
type those into the CLI. One resolver, run by the dispatcher before any handler, so
CLI, SDK and raw API agree: ``p2`` becomes ``<ws>:p2`` in the caller's workspace —
the workspace of the pane the calling process runs in (its process ancestry), else
its ``$HERDR_WORKSPACE_ID``, else the focused one. A short id that names nothing is
left as it is, so the handler answers ``pane_not_found`` / ``tab_not_found``.
(Workspace ids are already short: ``w1``.)
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from herdr.api import peercred
from herdr.runtime import ids
from herdr.terminal import procfs

if TYPE_CHECKING:
    from herdr.server.panes import PaneHost

# Param keys that carry a pane id / a tab id (top level, or in a list of objects).
PANE_KEYS: Final = frozenset({"pane_id", "target_pane_id", "source_pane_id", "caller_pane_id"})
TAB_KEYS: Final = frozenset({"tab_id", "current_tab_id"})
_SHORT: Final = re.compile(r"[pt][" + ids.ALPHABET + r"]{1,7}")
_MAX_ANCESTORS: Final = 64  # a process tree deeper than this is not a shell in a pane


def is_short(value: object, kind: str) -> bool:
    """``value`` is ``p<N>`` (kind "p") or ``t<N>`` (kind "t") with N a public number."""
    return isinstance(value, str) and value[:1] == kind and _SHORT.fullmatch(value) is not None


def expand(value: str, kind: str, workspace_id: str | None) -> str:
    """``p2`` -> ``w1:p2`` in ``workspace_id``; anything else unchanged."""
    if workspace_id is None or not is_short(value, kind):
        return value
    return f"{workspace_id}:{value}"


def needs_caller(params: Mapping[str, Any]) -> bool:
    """Whether any id param is short (the caller's workspace is looked up only then)."""
    return any(_short_key(k, v) for k, v in _id_items(params))


def expand_params(params: dict[str, Any], workspace_id: str | None) -> dict[str, Any]:
    """A copy of ``params`` with short pane/tab ids expanded (one level into lists)."""

    def one(obj: dict[str, Any]) -> dict[str, Any]:
        out = dict(obj)
        for key, value in obj.items():
            if key in PANE_KEYS:
                out[key] = expand(value, "p", workspace_id) if isinstance(value, str) else value
            elif key in TAB_KEYS:
                out[key] = expand(value, "t", workspace_id) if isinstance(value, str) else value
        return out

    top = one(params)
    for key, value in params.items():
        if isinstance(value, list) and any(isinstance(v, dict) for v in value):
            top[key] = [one(v) if isinstance(v, dict) else v for v in value]
    return top


def _id_items(params: Mapping[str, Any]) -> list[tuple[str, Any]]:
    items = list(params.items())
    for value in params.values():
        if isinstance(value, list):
            for entry in value:
                if isinstance(entry, dict):
                    items.extend(entry.items())
    return items


def _short_key(key: str, value: object) -> bool:
    return (key in PANE_KEYS and is_short(value, "p")) or (key in TAB_KEYS and is_short(value, "t"))


def caller_workspace(
    peer_pid: int | None,
    pane_of_pid: Callable[[int], str | None],
    workspace_exists: Callable[[str], bool],
    focused: str | None,
) -> str | None:
    """The caller's workspace: its pane's (ancestry), its ``$HERDR_WORKSPACE_ID``, the
    focused one. ``pane_of_pid`` maps a pane's shell pid to the workspace id it is in."""
    if peer_pid is not None and peer_pid > 0:
        pid = peer_pid
        for _ in range(_MAX_ANCESTORS):
            found = pane_of_pid(pid)
            if found is not None:
                return found
            stat = procfs.read_stat(pid)
            if stat is None or stat.ppid <= 1:
                break
            pid = stat.ppid
        env = _environ_value(peer_pid, "HERDR_WORKSPACE_ID")
        if env and workspace_exists(env):
            return env
    return focused


def _environ_value(pid: int, name: str) -> str | None:
    """One variable of ``pid``'s start-up environment, or None (gone, not readable)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read(1 << 20)
    except OSError:
        return None
    prefix = name.encode() + b"="
    for entry in raw.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :].decode("utf-8", "replace")
    return None


def peer_pid_of(sock: Any) -> int | None:
    """The connecting process's pid (``SO_PEERCRED``), or None where it cannot be told."""
    if sock is None:
        return None
    with contextlib.suppress(OSError):
        creds = peercred.peer_credentials(sock)
        return creds[0] if creds is not None else None
    return None


def resolve_for_caller(host: PaneHost, params: dict[str, Any], sock: Any) -> dict[str, Any]:
    """``params`` with short ids expanded in the workspace of the process behind ``sock``."""
    if not needs_caller(params):
        return params
    session = host.session
    shells: dict[int, str] = {}
    for loc in session.iter_panes():
        term = host.terminal(loc)
        pid = term.shell_pid if term is not None else None
        if pid is not None:
            shells[pid] = loc.workspace_id
    known = {ws.id for ws in session.workspaces}
    focused = session.focused_ids()[0]
    workspace_id = caller_workspace(peer_pid_of(sock), shells.get, known.__contains__, focused)
    return expand_params(params, workspace_id)
