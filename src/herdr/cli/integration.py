"""``herdr integration install|uninstall|status|list``: agent hooks, installed locally.

Like herdr, this runs in the CLI process and needs no server: the paths come from this
shell's environment (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, …). The server's
``integration.*`` methods do the same with the server's environment.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from herdr.cli.main import CliError, UsageError

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from herdr.cli.main import Nouns
    from herdr.integrations.targets import Target


def add_integration(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, add_verbs

    noun = nouns.add_parser("integration", help=NOUNS["integration"][0])
    verbs = add_verbs(noun, "herdr integration")
    for name, helptext in (
        ("install", "install (or update) herdr's hooks for an agent"),
        ("uninstall", "remove herdr's hooks for an agent"),
    ):
        cmd = verbs.add_parser(name, help=helptext, session=False)
        cmd.add_argument("target", metavar="<target>", help="agent, e.g. claude, codex, pi")
        cmd.set_defaults(handler=run_install if name == "install" else run_uninstall)
    status = verbs.add_parser("status", help="which integrations are installed", session=False)
    status.add_argument(
        "--outdated-only",
        action="store_true",
        help="print only advice about outdated integrations (on stderr)",
    )
    status.add_argument("--json", action="store_true", help="print JSON")
    status.set_defaults(handler=run_status)
    listing = verbs.add_parser(
        "list", help="every target: label, command, on PATH, state", session=False
    )
    listing.add_argument("target", nargs="?", metavar="<target>", help="only this agent")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=run_list)


def _target(name: str) -> Target:
    from herdr.integrations.targets import TARGETS, lookup

    target = lookup(name)
    if target is None:
        names = ", ".join(t.label for t in TARGETS)
        raise UsageError(f"unknown integration target: {name}\ncurrently supported: {names}")
    return target


def _act(args: argparse.Namespace, install: bool) -> int:
    from herdr.integrations import install as integrations
    from herdr.integrations.files import IntegrationError

    target = _target(args.target)
    action = integrations.install if install else integrations.uninstall
    try:
        messages = action(target.name, os.environ)
    except IntegrationError as exc:
        raise CliError(str(exc)) from None
    for line in messages:
        print(line)
    return 0


def run_install(args: argparse.Namespace) -> int:
    return _act(args, True)


def run_uninstall(args: argparse.Namespace) -> int:
    return _act(args, False)


def run_status(args: argparse.Namespace) -> int:
    from herdr.integrations import install as integrations
    from herdr.integrations.markers import OUTDATED
    from herdr.integrations.targets import TARGETS

    rows = [(t, integrations.status(t, os.environ)) for t in TARGETS]
    known = [(t, st) for t, st in rows if st is not None]
    if args.outdated_only:
        stale = [t.label for t, st in known if st.state == OUTDATED]
        if args.json:
            print(json.dumps({"outdated": stale}))
        elif stale:
            runs = [f"herdr integration install {label}" for label in stale]
            joined = runs[0] if len(runs) == 1 else ", ".join(runs[:-1]) + " and " + runs[-1]
            print(f"installed herdr integrations need updating; run {joined}.", file=sys.stderr)
        return 0
    if args.json:
        records = [
            {
                "target": t.name,
                "label": t.label,
                "state": st.state,
                "installed_version": st.installed,
                "expected_version": st.expected,
                "path": st.path,
            }
            for t, st in known
        ]
        print(json.dumps({"integrations": records}, indent=2))
        return 0
    for t, st in known:
        print(f"{t.label}: {st.describe()} ({st.path})")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from herdr.integrations import install as integrations

    records = integrations.listing(os.environ)
    if args.target is not None:
        wanted = _target(args.target).name
        records = [r for r in records if r["target"] == wanted]
    if args.json:
        print(json.dumps({"integrations": records}, indent=2))
        return 0
    width = max(len(str(r["label"])) for r in records)
    for r in records:
        where = "on PATH" if r["available"] else "not found"
        state = str(r["state"]).replace("_", " ")
        print(f"{r['label']:<{width}}  {r['command']} ({where})  {state}")
    return 0
