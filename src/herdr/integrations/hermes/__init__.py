"""Hermes plugin installed by herdr: reports the session id to the herdr pane it runs in.

Installed by herdr; managed by herdr: reinstalling the integration overwrites this file.
Outside herdr (HERDR_ENV unset) every hook returns at once. Reports go over herdr's local
Unix socket only, with a 0.5 s timeout, and never raise into Hermes.
"""

# HERDR_INTEGRATION_ID=hermes
# HERDR_INTEGRATION_VERSION=5

from __future__ import annotations

import json
import os
import random
import socket
import time
from typing import Any

_SOURCE = "herdr:hermes"
_AGENT = "hermes"
_INTERACTIVE = frozenset({"cli", "tui", "desktop", "acp"})


def _report(session_id: object, start_source: str) -> None:
    if os.environ.get("HERDR_ENV") != "1":
        return
    pane = os.environ.get("HERDR_PANE_ID", "").strip()
    path = os.environ.get("HERDR_SOCKET_PATH", "").strip()
    if not pane or not path or not isinstance(session_id, str) or not session_id.strip():
        return
    params = {
        "pane_id": pane,
        "source": _SOURCE,
        "agent": _AGENT,
        "seq": time.time_ns(),
        "agent_session_id": session_id,
        "session_start_source": start_source,
    }
    rid = f"{_SOURCE}:{time.time_ns() // 1_000_000}:{random.randrange(1_000_000):06d}"
    line = json.dumps({"id": rid, "method": "pane.report_agent_session", "params": params})
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.5)
            sock.connect(path)
            sock.sendall(line.encode() + b"\n")
            sock.recv(4096)
    except Exception:  # a hook must never break Hermes
        pass


def _hook(start_source: str, *, cli_only: bool = False) -> Any:
    def hook(**kwargs: Any) -> None:
        platform = kwargs.get("platform")
        if platform not in _INTERACTIVE or (cli_only and platform != "cli"):
            return
        _report(kwargs.get("session_id"), start_source)

    return hook


def register(ctx: Any) -> None:
    """Hermes calls this when it loads the plugin."""
    ctx.register_hook("on_session_start", _hook("startup"))
    ctx.register_hook("on_session_reset", _hook("new"))
    ctx.register_hook("pre_llm_call", _hook("resume", cli_only=True))
