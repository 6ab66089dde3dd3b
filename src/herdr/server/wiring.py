"""The one immutable `Server` every handler sees, and the `Call` that carries it.

`ServerCore` (facts, bus, stop signal, session host) is what the parts are built on;
`Server` adds the parts themselves. `herdr.server.app.build_server` makes one, with
every field set: no part reaches another through a mutable slot or a lookup by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from herdr.server.agents import AgentRuntime
from herdr.server.attach import AttachRegistry
from herdr.server.core import ServerCore
from herdr.server.cwd_sampler import CwdSampler
from herdr.server.persistence import Persistence
from herdr.server.plugin_host import PluginHost
from herdr.server.views import ViewedPanes
from herdr.server.worktree_ops import WorktreeOps
from herdr.web.host import WebHost

if TYPE_CHECKING:
    from herdr.server.transport import Connection


@dataclass(frozen=True)
class Server(ServerCore):
    """Everything one server runs: ``panes`` (the session host and its terminals),
    ``agents`` (agent state per terminal), ``attach`` (TUI clients), ``views`` (what
    they show), ``persistence`` (session.json), ``cwd`` (the cwd sampler) and
    ``plugins`` (the plugin registry, runs and hooks) and ``web`` (the web view)."""

    agents: AgentRuntime
    attach: AttachRegistry
    views: ViewedPanes
    persistence: Persistence
    cwd: CwdSampler
    worktrees: WorktreeOps
    plugins: PluginHost
    web: WebHost


@dataclass
class Call:
    """One request: its id, method, validated params, the server and the connection."""

    id: str
    method: str
    params: dict[str, Any]
    server: Server
    conn: Connection
    # Run after the response line has been flushed (e.g. ``server.stop``).
    after_response: list[Callable[[], None]] = field(default_factory=list)
