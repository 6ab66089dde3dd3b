"""``herdr agent …``: list, read, drive, wait for and start agents (herdr-spec §3.2, §3.3).

A target is a live agent name or the pane id hosting an agent. Waits and prompts are
held requests (no client-side timeout): the server answers when the agent settles,
or with ``timeout`` after ``--timeout`` milliseconds.
"""

from __future__ import annotations

import argparse
import sys

from herdr.cli.common import Params, clean, verb
from herdr.cli.main import Parser, UsageError

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from typing import Any

    from herdr.cli.main import Nouns

STATUSES = ("idle", "working", "blocked", "done", "unknown")


class _TrailingArgsParser(Parser):
    """``agent start … -- ARGS``: everything after ``--`` goes to the agent verbatim.

    argparse cannot put positionals after options into a list that started before
    them, so the part after ``--`` is split off before parsing.
    """

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        items = list(args or [])
        trailing: list[str] = []
        if "--" in items:
            cut = items.index("--")
            items, trailing = items[:cut], items[cut + 1 :]
        ns, extras = super().parse_known_args(items, namespace)
        ns.agent_args = trailing
        return ns, extras


def _target(args: argparse.Namespace) -> Params:
    return {"target": args.target}


def run_read(args: argparse.Namespace) -> int:
    from herdr.cli.pane import SOURCES
    from herdr.cli.transport import request_or_exit

    ansi = args.ansi or args.format == "ansi"
    params = clean(
        {
            "target": args.target,
            "source": SOURCES[args.source],
            "lines": args.lines,
            "format": "ansi" if ansi else "text",
            "strip_ansi": False if args.raw else None,
        }
    )
    envelope = request_or_exit(args, "agent.read", params)
    text = str(envelope["result"]["read"]["text"])
    if text and not text.endswith("\n"):
        text += "\n"
    sys.stdout.write(text)
    return 0


def _prompt(args: argparse.Namespace) -> Params:
    if args.until and not args.wait:
        raise UsageError("--until needs --wait")
    if args.timeout is not None and not args.wait:
        raise UsageError("--timeout needs --wait")
    params: Params = {"target": args.target, "text": " ".join(args.text)}
    if args.wait:
        params["wait"] = clean({"until": args.until or None, "timeout_ms": args.timeout})
    return params


def _wait(args: argparse.Namespace) -> Params:
    targets: list[str] = args.targets
    if args.all and args.any:
        raise UsageError("give --any or --all, not both")
    if len(targets) > 1 and not (args.any or args.all):
        raise UsageError("several targets need --any or --all")
    params: Params = clean(
        {"target": targets[0], "until": args.until or None, "timeout_ms": args.timeout}
    )
    if len(targets) > 1:
        params["targets"] = targets
        params["mode"] = "all" if args.all else "any"
    return params


def _rename(args: argparse.Namespace) -> Params:
    if args.clear == (args.name is not None):
        raise UsageError("give a name or --clear")
    return {"target": args.target, "name": None if args.clear else args.name}


def run_start(args: argparse.Namespace) -> int:
    from herdr.cli.transport import print_json, request_or_exit

    params = clean(
        {
            "name": args.name,
            "kind": args.kind,
            "pane_id": args.pane,
            "timeout_ms": args.timeout,
            "args": list(getattr(args, "agent_args", []) or []) or None,
        }
    )
    envelope = request_or_exit(args, "agent.start", params, timeout=None)
    result = envelope["result"]
    budget_ms = args.timeout if args.timeout is not None else START_TIMEOUT_MS
    result["agent"] = _await_launch(args, result["agent"]["pane_id"], args.kind, budget_ms)
    print_json(envelope)
    return 0


# The server answers ``agent.start`` once the command is typed (herdr 0.9); the CLI
# keeps the spec's contract (§3.3) and returns when the agent owns the pane and is
# ready. The server's waits are not usable before the agent is detected (it is not a
# target yet), so the CLI looks again at this interval.
START_TIMEOUT_MS = 30_000
START_POLL_S = 0.05


def launch_state(record: dict[str, Any], kind: str) -> str:
    """``ready``, ``blocked`` or ``pending``: what an AgentInfo says about a launch."""
    if record.get("agent") != kind:
        return "pending"
    if record.get("agent_status") == "blocked":
        return "blocked"
    ready = record.get("interactive_ready") and not record.get("launch_pending")
    return "ready" if ready else "pending"


def _await_launch(args: argparse.Namespace, pane_id: str, kind: str, budget_ms: int) -> Any:
    import time

    from herdr.cli.transport import fail

    deadline = time.monotonic() + budget_ms / 1000
    while True:
        record = _agent_in(args, pane_id)
        state = "pending" if record is None else launch_state(record, kind)
        if state == "ready":
            return record
        if state == "blocked":
            fail("agent_not_ready", f"{kind} is blocked at startup")
        if time.monotonic() >= deadline:
            fail("timeout", f"timed out waiting for {kind} to become ready")
        time.sleep(START_POLL_S)


def _agent_in(args: argparse.Namespace, pane_id: str) -> Any:
    """The pane's AgentInfo, or None while no agent is detected there yet."""
    from herdr.cli import jsonlite
    from herdr.cli.transport import RequestFailed, fail, request, socket_path_for

    try:
        envelope = request(socket_path_for(args), "agent.get", {"target": pane_id})
    except RequestFailed as exc:
        fail(exc.code, exc.message)
    error = envelope.get("error")
    if isinstance(error, dict):
        if error.get("code") == "agent_not_found":
            return None
        sys.stderr.write(jsonlite.dumps(envelope) + "\n")
        raise SystemExit(1)
    return envelope["result"]["agent"]


def add_agent(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, add_verbs
    from herdr.cli.pane import SOURCES

    noun = nouns.add_parser("agent", help=NOUNS["agent"][0])
    verbs = add_verbs(noun, "herdr agent")

    listing = verb(verbs, "list", "list agents", "agent.list", lambda a: {})
    listing.add_argument(
        "--all-machines",
        action="store_true",
        help="also every saved machine's agents (each with a machine field)",
    )
    one_machine = listing.get_default("handler")

    def run_list(args: argparse.Namespace) -> int:
        if getattr(args, "all_machines", False):
            from herdr.remote.all_machines import run_all_machines

            return run_all_machines(args)
        result: int = one_machine(args)
        return result

    listing.set_defaults(handler=run_list)
    get = verb(verbs, "get", "show an agent", "agent.get", _target)
    get.add_argument("target", metavar="TARGET", help="agent name or pane id")

    read = verbs.add_parser("read", help="print an agent's text (as pane read)")
    read.add_argument("target", metavar="TARGET")
    read.add_argument("--source", choices=sorted(SOURCES), default="recent")
    read.add_argument("--lines", type=int, metavar="N", help="last N lines")
    read.add_argument("--raw", action="store_true", help="keep ANSI escape sequences")
    read.add_argument("--format", choices=("text", "ansi"), default="text")
    read.add_argument("--ansi", action="store_true", help="same as --format ansi")
    read.set_defaults(handler=run_read)

    keys = verb(
        verbs,
        "send-keys",
        "press keys in an agent's pane",
        "agent.send_keys",
        lambda a: {"target": a.target, "keys": a.keys},
        silent=True,
    )
    keys.add_argument("target", metavar="TARGET")
    keys.add_argument("keys", nargs="+", metavar="KEY")

    rename = verb(verbs, "rename", "name an agent (or --clear)", "agent.rename", _rename)
    rename.add_argument("target", metavar="TARGET")
    rename.add_argument("name", nargs="?", metavar="NAME")
    rename.add_argument("--clear", action="store_true", help="remove the name")

    focus = verb(verbs, "focus", "focus an agent's pane (marks it seen)", "agent.focus", _target)
    focus.add_argument("target", metavar="TARGET")

    prompt = verb(
        verbs, "prompt", "type a prompt and submit it", "agent.prompt", _prompt, held=True
    )
    prompt.add_argument("target", metavar="TARGET")
    prompt.add_argument("text", nargs="+")
    prompt.add_argument("--wait", action="store_true", help="wait until the agent settles")
    prompt.add_argument(
        "--until", action="append", choices=STATUSES, help="status to wait for (repeatable)"
    )
    prompt.add_argument("--timeout", type=int, metavar="MS", help="give up after MS ms")

    wait = verb(verbs, "wait", "wait for an agent's status", "agent.wait", _wait, held=True)
    wait.add_argument("targets", nargs="+", metavar="TARGET")
    wait.add_argument(
        "--until", action="append", choices=STATUSES, help="status to wait for (repeatable)"
    )
    wait.add_argument("--timeout", type=int, metavar="MS", help="give up after MS ms")
    wait.add_argument("--any", action="store_true", help="several targets: the first to match")
    wait.add_argument("--all", action="store_true", help="several targets: all must match")

    start = verbs.add_parser(
        "start",
        help="launch an agent in a pane's shell",
        description="Launch KIND in PANE's shell; arguments after -- go to the agent.",
    )
    if isinstance(start, Parser):
        start.__class__ = _TrailingArgsParser
    start.add_argument("name", metavar="NAME", help="agent name ([a-z][a-z0-9_-]{0,31})")
    start.add_argument("--kind", required=True, metavar="KIND", help="agent kind (claude, …)")
    start.add_argument("--pane", required=True, metavar="PANE", help="pane with an idle shell")
    start.add_argument("--timeout", type=int, metavar="MS", help="startup timeout (ms)")
    start.set_defaults(handler=run_start)

    approval = verbs.add_parser(
        "approval",
        help="show the permission dialog an agent is blocked on",
        description="The question, detail and options of PANE's dialog (read by its manifest).",
    )
    approval.add_argument("target", metavar="PANE", help="agent name or pane id")
    approval.add_argument("--json", action="store_true", help="print the JSON answer")
    approval.set_defaults(handler=_approval)

    approve = verbs.add_parser(
        "approve",
        help="answer an agent's permission dialog with one option",
        description=(
            "Send the keys of OPTION (its id from `agent approval`); with --fingerprint, "
            "only while that same dialog is on screen (else approval_changed)."
        ),
    )
    approve.add_argument("target", metavar="PANE", help="agent name or pane id")
    approve.add_argument("option", metavar="OPTION", help="option id, e.g. 1")
    approve.add_argument("--fingerprint", metavar="F", help="the dialog's fingerprint")
    approve.set_defaults(handler=_approve)

    kinds = verbs.add_parser(
        "kinds",
        help="list built-in and user-defined agent kinds",
        description="Agent kinds herdr knows, built-in and from ~/.config/herdr/agents/.",
    )
    kinds.add_argument("--json", action="store_true", help="print JSON")
    kinds.set_defaults(handler=_kinds)

    explain = verbs.add_parser(
        "explain",
        help="show which detection rule decides an agent's state",
        description=(
            "Explain detection for a live agent, or offline for a saved screen with "
            "--file SCREEN --agent LABEL (no server needed)."
        ),
    )
    explain.add_argument("target", nargs="?", help="agent name or pane id (live mode)")
    explain.add_argument("--file", metavar="SCREEN", help="screen text file (offline mode)")
    explain.add_argument("--agent", metavar="LABEL", help="agent label for --file")
    explain.add_argument("--osc-title", metavar="T", help="OSC title (offline)")
    explain.add_argument("--osc-progress", metavar="P", help="OSC 9 progress")
    fmt = explain.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the explain JSON")
    fmt.add_argument("--verbose", action="store_true", help="add flags and every rule")
    explain.set_defaults(handler=_explain)

    capture = verbs.add_parser(
        "capture",
        help="save a pane's detection input as a fixture",
        description=(
            "Write what detection sees in PANE (screen, OSC title/progress, process, "
            "verdict) as a capture file; `herdr agent explain --file F` replays it."
        ),
    )
    capture.add_argument("target", metavar="PANE", help="agent name or pane id")
    capture.add_argument("--out", metavar="F", help="write to F instead of stdout")
    capture.set_defaults(handler=_capture)


def _approval(args: argparse.Namespace) -> int:
    from herdr.cli.approvals import run_approval

    return run_approval(args)


def _approve(args: argparse.Namespace) -> int:
    from herdr.cli.approvals import run_approve

    return run_approve(args)


def _kinds(args: argparse.Namespace) -> int:
    from herdr.cli.agent_kinds import run_kinds

    return run_kinds(args)


def _explain(args: argparse.Namespace) -> int:
    from herdr.cli.explain import run_explain

    return run_explain(args)


def _capture(args: argparse.Namespace) -> int:
    from herdr.cli.explain import run_capture

    return run_capture(args)


def run_agent_manifests(args: argparse.Namespace) -> int:
    from herdr.cli.transport import call_and_print

    return call_and_print(args, "server.agent_manifests", {})


def run_reload_agent_manifests(args: argparse.Namespace) -> int:
    from herdr.cli.transport import call_and_print

    return call_and_print(args, "server.reload_agent_manifests", {})
