"""``herdr agent list --all-machines``: local agents plus every saved machine's.

Every agent gets a ``machine`` field (``local`` or the saved name). Machines are asked
in parallel, each over its own ssh stream; one that cannot be reached (or has no
server) is listed under ``unreachable`` with its error, and the rest still answer.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from herdr.cli import transport
from herdr.remote import machines_store
from herdr.remote.ssh_stream import machine_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

LOCAL = "local"
TIMEOUT_S = 30.0


def _agents(name: str, path: str) -> tuple[str, list[dict[str, Any]] | None, dict[str, str]]:
    try:
        envelope = transport.request(path, "agent.list", {}, timeout=TIMEOUT_S)
    except transport.RequestFailed as exc:
        return name, None, {"code": exc.code, "message": exc.message}
    result = envelope.get("result")
    if not isinstance(result, dict):
        error = envelope.get("error")
        err = error if isinstance(error, dict) else {}
        return name, None, {"code": str(err.get("code")), "message": str(err.get("message"))}
    agents = [dict(a, machine=name) for a in result.get("agents", []) if isinstance(a, dict)]
    return name, agents, {}


def run_all_machines(args: argparse.Namespace) -> int:
    session = getattr(args, "session", None)
    try:
        machines = machines_store.load(os.environ)
    except ValueError as exc:
        transport.fail("invalid_machines_file", str(exc))
    routes = [(LOCAL, transport.socket_path_for(args))]
    routes += [(name, machine_path(name, session)) for name in sorted(machines.targets)]
    with ThreadPoolExecutor(max_workers=min(8, len(routes))) as pool:
        answers = list(pool.map(lambda route: _agents(*route), routes))
    agents: list[dict[str, Any]] = []
    unreachable: list[dict[str, Any]] = []
    for name, found, error in answers:
        if found is None:
            unreachable.append({"machine": name, "error": error})
            sys.stderr.write(f"herdr: {name}: {error['code']}: {error['message']}\n")
        else:
            agents += found
    rid = transport.request_id("agent.list", args)
    result = {"type": "agent_list", "agents": agents, "unreachable": unreachable}
    envelope = {"id": rid, "result": result}
    if not getattr(args, "json", False) and sys.stdout.isatty():
        from herdr.cli.tables import render

        table = render("agent.list", result, os.environ.get("HOME", ""))
        if table is not None:
            sys.stdout.write(table)
            return 0
    transport.print_json(envelope)
    return 0
