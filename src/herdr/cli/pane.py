"""``herdr pane …``: structure, input, reads and waits (§3.2, §3.3)."""

from __future__ import annotations

import argparse
import sys

from herdr.cli.common import Params, abs_cwd, clean, current_pane, env_pairs, verb
from herdr.cli.main import UsageError

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from herdr.cli.main import LazyVerbs, Nouns

DIRECTIONS = ("left", "right", "up", "down")
SOURCES = {
    "visible": "visible",
    "recent": "recent",
    "recent-unwrapped": "recent_unwrapped",
    "recent_unwrapped": "recent_unwrapped",
    "detection": "detection",
}


def _target_args(parser: argparse.ArgumentParser, *, positional: bool = True) -> None:
    """``[<p>] [--pane P] [--current|--focused]``: which pane.

    None given: the calling pane ($HERDR_PANE_ID) when run inside one, as herdr's CLI
    does, so ``herdr pane split`` from an agent splits the agent's own pane even when
    the user has focused another; outside a pane (or with ``--focused``), the server's
    focused pane.
    """
    if positional:
        parser.add_argument("pane", nargs="?", metavar="PANE")
    parser.add_argument("--pane", dest="pane_flag", metavar="PANE", help="target pane")
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--current", action="store_true", help="the calling pane ($HERDR_PANE_ID; the default)"
    )
    which.add_argument(
        "--focused", action="store_true", help="the focused pane, even inside another pane"
    )


def _target(args: argparse.Namespace) -> str | None:
    chosen = [v for v in (getattr(args, "pane", None), args.pane_flag) if v]
    if len(chosen) > 1 and chosen[0] != chosen[1]:
        raise UsageError("give the pane once (positional or --pane)")
    if chosen:
        if args.focused:
            raise UsageError("give a pane or --focused, not both")
        return str(chosen[0])
    return None if args.focused else current_pane()


def _required_target(args: argparse.Namespace) -> str:
    pane = _target(args)
    if pane is None:
        raise UsageError("a pane is required (PANE, --pane or --current with $HERDR_PANE_ID)")
    return pane


def _words(words: list[str]) -> str:
    """Every word after the pane, space-joined: ``-``/``--`` words are text too.

    ``herdr pane run P claude --resume ID`` types ``claude --resume ID`` (argparse's
    REMAINDER takes them as they are; only a leading ``--`` is argparse's own).
    """
    if not words:
        raise UsageError("give the text to send after the pane")
    return " ".join(words)


def _pane(args: argparse.Namespace) -> Params:
    return {"pane_id": args.pane_id}


def _source(value: str) -> str:
    try:
        return SOURCES[value]
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"invalid source {value!r} (visible, recent, recent-unwrapped, detection)"
        ) from None


def _add_read_args(parser: argparse.ArgumentParser, default_source: str) -> None:
    parser.add_argument("--source", type=_source, default=default_source, help="read source")
    parser.add_argument("--lines", type=int, metavar="N", help="last N lines")
    parser.add_argument("--raw", action="store_true", help="keep ANSI escape sequences")


def run_read(args: argparse.Namespace) -> int:
    from herdr.cli.transport import request_or_exit

    ansi = args.ansi or args.format == "ansi"
    params = clean(
        {
            "pane_id": args.pane_id,
            "source": args.source,
            "lines": args.lines,
            "format": "ansi" if ansi else "text",
            "strip_ansi": False if args.raw else None,
        }
    )
    envelope = request_or_exit(args, "pane.read", params)
    text = str(envelope["result"]["read"]["text"])
    if text and not text.endswith("\n"):
        text += "\n"
    sys.stdout.write(text)
    return 0


def _wait_params(args: argparse.Namespace) -> Params:
    if (args.match is None) == (args.regex is None):
        raise UsageError("give exactly one of --match or --regex")
    match = (
        {"type": "regex", "value": args.regex}
        if args.regex is not None
        else {"type": "substring", "value": args.match}
    )
    return clean(
        {
            "pane_id": args.pane_id,
            "source": args.source,
            "lines": args.lines,
            "timeout_ms": args.timeout,
            "match": match,
            "strip_ansi": False if args.raw else None,
        }
    )


def _split(args: argparse.Namespace) -> Params:
    return clean(
        {
            "target_pane_id": _target(args),
            "direction": args.direction,
            "ratio": args.ratio,
            "cwd": abs_cwd(args.cwd),
            "env": env_pairs(args.env),
            "right_click": args.right_click,
            "focus": bool(args.focus),
        }
    )


def _zoom(args: argparse.Namespace) -> Params:
    return clean({"pane_id": _target(args), "mode": args.mode})


def _swap(args: argparse.Namespace) -> Params:
    if args.direction is None and (args.source_pane is None or args.target_pane is None):
        raise UsageError("give --direction, or --source-pane and --target-pane")
    return clean(
        {
            "pane_id": _target(args),
            "direction": args.direction,
            "source_pane_id": args.source_pane,
            "target_pane_id": args.target_pane,
        }
    )


def _move(args: argparse.Namespace) -> Params:
    modes = [bool(args.tab), args.new_tab, args.new_workspace]
    if sum(modes) != 1:
        raise UsageError("give exactly one of --tab, --new-tab or --new-workspace")
    if args.tab:
        if args.split is None:
            raise UsageError("--tab needs --split right|down")
        destination = clean(
            {
                "type": "tab",
                "tab_id": args.tab,
                "split": args.split,
                "target_pane_id": args.target_pane,
                "ratio": args.ratio,
            }
        )
    elif args.new_tab:
        destination = clean(
            {"type": "new_tab", "workspace_id": args.workspace, "label": args.label}
        )
    else:
        destination = clean(
            {"type": "new_workspace", "label": args.label, "tab_label": args.tab_label}
        )
    return {"pane_id": args.pane_id, "destination": destination, "focus": bool(args.focus)}


def run_focus(args: argparse.Namespace) -> int:
    from herdr.cli.transport import call_and_print

    if args.direction is not None:
        params = clean({"pane_id": _target(args), "direction": args.direction})
        return call_and_print(args, "pane.focus_direction", params)
    return call_and_print(args, "pane.focus", {"pane_id": _required_target(args)})


def add_pane(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, add_verbs

    noun = nouns.add_parser("pane", help=NOUNS["pane"][0])
    verbs = add_verbs(noun, "herdr pane")
    listing = verb(
        verbs, "list", "list panes", "pane.list", lambda a: clean({"workspace_id": a.workspace})
    )
    listing.add_argument("--workspace", metavar="WORKSPACE", help="only this workspace")
    get = verb(verbs, "get", "show a pane", "pane.get", _pane)
    get.add_argument("pane_id", metavar="PANE")
    current = verb(
        verbs,
        "current",
        "the calling (or focused) pane",
        "pane.current",
        lambda a: clean({"caller_pane_id": _target(a)}),
    )
    _target_args(current, positional=False)

    split = verb(verbs, "split", "split a pane; prints the new pane", "pane.split", _split)
    _target_args(split)
    split.add_argument("--direction", required=True, choices=("right", "down"))
    split.add_argument("--ratio", type=float, metavar="F", help="share of the new pane")
    split.add_argument("--cwd", metavar="DIR", help="working directory (default: follow)")
    split.add_argument("--env", action="append", metavar="K=V", help="environment")
    split.add_argument("--right-click", choices=("herdr", "pane"), dest="right_click")
    focus_group = split.add_mutually_exclusive_group()
    focus_group.add_argument("--focus", dest="focus", action="store_true")
    focus_group.add_argument("--no-focus", dest="focus", action="store_false")

    close = verb(verbs, "close", "close a pane", "pane.close", _pane)
    close.add_argument("pane_id", metavar="PANE")
    for name, method, helptext in (
        ("clear", "pane.clear", "clear a pane's screen and scrollback"),
        ("edit-scrollback", "pane.edit_scrollback", "open a pane's scrollback in $EDITOR"),
    ):
        _target_args(
            verb(verbs, name, helptext, method, lambda a: {"pane_id": _required_target(a)})
        )
    rename = verb(
        verbs,
        "rename",
        "label a pane (or --clear)",
        "pane.rename",
        lambda a: clean(
            {"pane_id": a.pane_id, "label": None if a.clear else " ".join(a.label or [])}
        ),
    )
    rename.add_argument("pane_id", metavar="PANE")
    rename.add_argument("label", nargs="*")
    rename.add_argument("--clear", action="store_true", help="remove the label")

    layout = verb(
        verbs,
        "layout",
        "the pane's tab layout",
        "pane.layout",
        lambda a: clean({"pane_id": _target(a)}),
    )
    _target_args(layout)

    focus = verbs.add_parser("focus", help="focus a pane or its neighbour")
    _target_args(focus)
    focus.add_argument("--direction", choices=DIRECTIONS, help="focus the neighbour")
    focus.set_defaults(handler=run_focus)

    for name, method, helptext in (
        ("neighbor", "pane.neighbor", "the neighbour in a direction"),
        ("resize", "pane.resize", "move the divider on one side"),
    ):
        cmd = verb(
            verbs,
            name,
            helptext,
            method,
            lambda a: clean(
                {
                    "pane_id": _target(a),
                    "direction": a.direction,
                    "amount": getattr(a, "amount", None),
                }
            ),
        )
        _target_args(cmd)
        cmd.add_argument("--direction", required=True, choices=DIRECTIONS)
        if name == "resize":
            cmd.add_argument("--amount", type=float, metavar="F", help="fraction (default 0.05)")
    edges = verb(
        verbs,
        "edges",
        "which sides touch the edge",
        "pane.edges",
        lambda a: clean({"pane_id": _target(a)}),
    )
    _target_args(edges)

    zoom = verb(verbs, "zoom", "zoom the pane's tab around it", "pane.zoom", _zoom)
    _target_args(zoom)
    mode = zoom.add_mutually_exclusive_group()
    mode.add_argument("--toggle", dest="mode", action="store_const", const="toggle")
    mode.add_argument("--on", dest="mode", action="store_const", const="on")
    mode.add_argument("--off", dest="mode", action="store_const", const="off")

    swap = verb(verbs, "swap", "swap two panes of a tab", "pane.swap", _swap)
    _target_args(swap)
    swap.add_argument("--direction", choices=DIRECTIONS)
    swap.add_argument("--source-pane", metavar="PANE")
    swap.add_argument("--target-pane", metavar="PANE")

    move = verb(verbs, "move", "move a pane to a tab, new tab or new workspace", "pane.move", _move)
    move.add_argument("pane_id", metavar="PANE")
    move.add_argument("--tab", metavar="TAB")
    move.add_argument("--split", choices=("right", "down"))
    move.add_argument("--target-pane", metavar="PANE")
    move.add_argument("--ratio", type=float)
    move.add_argument("--new-tab", action="store_true")
    move.add_argument("--new-workspace", action="store_true")
    move.add_argument("--workspace", metavar="WORKSPACE")
    move.add_argument("--label")
    move.add_argument("--tab-label")
    move_focus = move.add_mutually_exclusive_group()
    move_focus.add_argument("--focus", dest="focus", action="store_true", help="(default)")
    move_focus.add_argument(
        "--no-focus", dest="focus", action="store_false", help="keep the focus where it is"
    )
    move.set_defaults(focus=True)  # herdr focuses the moved pane unless told not to

    info = verb(
        verbs,
        "process-info",
        "the pane's shell and foreground processes",
        "pane.process_info",
        lambda a: clean({"pane_id": _target(a)}),
    )
    _target_args(info)

    send_text = verb(
        verbs,
        "send-text",
        "type text into a pane (not run)",
        "pane.send_text",
        lambda a: {"pane_id": a.pane_id, "text": _words(a.text)},
        silent=True,
    )
    send_text.add_argument("pane_id", metavar="PANE")
    send_text.add_argument("text", nargs=argparse.REMAINDER, metavar="TEXT")
    send_keys = verb(
        verbs,
        "send-keys",
        "press keys (enter, ctrl+c, f5, …) in a pane",
        "pane.send_keys",
        lambda a: {"pane_id": a.pane_id, "keys": a.keys},
        silent=True,
    )
    send_keys.add_argument("pane_id", metavar="PANE")
    send_keys.add_argument("keys", nargs="+", metavar="KEY")
    run = verb(
        verbs,
        "run",
        "type a command and press Enter",
        "pane.send_input",
        lambda a: {"pane_id": a.pane_id, "text": _words(a.command), "keys": ["Enter"]},
        silent=True,
    )
    run.add_argument("pane_id", metavar="PANE")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="CMD")

    read = verbs.add_parser("read", help="print a pane's text")
    read.add_argument("pane_id", metavar="PANE")
    _add_read_args(read, "recent")
    read.add_argument("--format", choices=("text", "ansi"), default="text")
    read.add_argument("--ansi", action="store_true", help="same as --format ansi")
    read.set_defaults(handler=run_read)

    wait = verb(
        verbs,
        "wait-output",
        "wait until a line matches",
        "pane.wait_for_output",
        _wait_params,
        held=True,
    )
    wait.add_argument("pane_id", metavar="PANE")
    wait.add_argument("--match", metavar="TEXT", help="literal text within one line")
    wait.add_argument("--regex", metavar="RE", help="regular expression (Rust syntax) per line")
    wait.add_argument("--timeout", type=int, metavar="MS", help="give up after MS milliseconds")
    _add_read_args(wait, "recent")
    add_report_verbs(verbs)


# --- hook reports (silent on success) -------------------------------------------------

REPORT_STATES = ("idle", "working", "blocked", "unknown")


def _pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} expects NAME=VALUE, got {item!r}")
        out[key] = value
    return out


def token_patch(args: argparse.Namespace) -> dict[str, str | None] | None:
    """``--token N=V`` (set) and ``--clear-token N`` (remove) as one patch."""
    patch: dict[str, str | None] = dict(_pairs(args.token, "--token"))
    for name in args.clear_token or []:
        patch[name] = None
    return patch or None


def add_token_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True, metavar="ID", help="reporter id")
    parser.add_argument("--token", action="append", metavar="N=V", help="set a token")
    parser.add_argument("--clear-token", action="append", metavar="N", help="remove a token")
    parser.add_argument("--seq", type=int, metavar="N", help="ordering number per source")
    parser.add_argument("--ttl-ms", type=int, metavar="MS", help="expire after MS ms")


def _report_agent(args: argparse.Namespace) -> Params:
    return clean(
        {
            "pane_id": args.pane_id,
            "source": args.source,
            "agent": args.agent,
            "state": args.state,
            "message": args.message,
            "seq": args.seq,
            "agent_session_id": args.agent_session_id,
            "agent_session_path": args.agent_session_path,
        }
    )


def _report_session(args: argparse.Namespace) -> Params:
    return clean(
        {
            "pane_id": args.pane_id,
            "source": args.source,
            "agent": args.agent,
            "seq": args.seq,
            "agent_session_id": args.agent_session_id,
            "agent_session_path": args.agent_session_path,
            "session_start_source": args.session_start_source,
        }
    )


def _release(args: argparse.Namespace) -> Params:
    return clean(
        {"pane_id": args.pane_id, "source": args.source, "agent": args.agent, "seq": args.seq}
    )


def _report_metadata(args: argparse.Namespace) -> Params:
    params = clean(
        {
            "pane_id": args.pane_id,
            "source": args.source,
            "agent": args.agent,
            "applies_to_source": args.applies_to_source,
            "title": args.title,
            "display_agent": args.display_agent,
            "state_labels": _pairs(args.state_label, "--state-label") or None,
            "tokens": token_patch(args),
            "seq": args.seq,
            "ttl_ms": args.ttl_ms,
        }
    )
    for flag in ("clear_title", "clear_display_agent", "clear_state_labels"):
        if getattr(args, flag):
            params[flag] = True
    return params


def add_report_verbs(verbs: LazyVerbs) -> None:
    """``pane report-agent``, ``report-agent-session``, ``release-agent``, ``report-metadata``."""
    report = verb(
        verbs,
        "report-agent",
        "report an agent's state",
        "pane.report_agent",
        _report_agent,
        silent=True,
    )
    report.add_argument("pane_id", metavar="PANE")
    report.add_argument("--source", required=True, metavar="ID")
    report.add_argument("--agent", required=True, metavar="LABEL")
    report.add_argument("--state", required=True, choices=REPORT_STATES)
    report.add_argument("--message")
    report.add_argument("--seq", type=int, metavar="N")
    report.add_argument("--agent-session-id", metavar="ID")
    report.add_argument("--agent-session-path", metavar="PATH")

    session = verb(
        verbs,
        "report-agent-session",
        "report an agent's session identity",
        "pane.report_agent_session",
        _report_session,
        silent=True,
    )
    session.add_argument("pane_id", metavar="PANE")
    session.add_argument("--source", required=True, metavar="ID")
    session.add_argument("--agent", required=True, metavar="LABEL")
    session.add_argument("--seq", type=int, metavar="N")
    session.add_argument("--agent-session-id", metavar="ID")
    session.add_argument("--agent-session-path", metavar="PATH")
    session.add_argument("--session-start-source", metavar="KIND")

    release = verb(
        verbs,
        "release-agent",
        "let go of a pane (custom reporters)",
        "pane.release_agent",
        _release,
        silent=True,
    )
    release.add_argument("pane_id", metavar="PANE")
    release.add_argument("--source", required=True, metavar="ID")
    release.add_argument("--agent", required=True, metavar="LABEL")
    release.add_argument("--seq", type=int, metavar="N")

    meta = verb(
        verbs,
        "report-metadata",
        "attach display metadata to a pane",
        "pane.report_metadata",
        _report_metadata,
        silent=True,
    )
    meta.add_argument("pane_id", metavar="PANE")
    add_token_args(meta)
    meta.add_argument("--agent", metavar="LABEL", help="only while this agent is present")
    meta.add_argument("--applies-to-source", metavar="ID", help="only under this hook source")
    title = meta.add_mutually_exclusive_group()
    title.add_argument("--title", metavar="T")
    title.add_argument("--clear-title", action="store_true")
    display = meta.add_mutually_exclusive_group()
    display.add_argument("--display-agent", metavar="T")
    display.add_argument("--clear-display-agent", action="store_true")
    meta.add_argument("--state-label", action="append", metavar="S=T", help="label a status")
    meta.add_argument("--clear-state-labels", action="store_true")
