"""``herdr machine add NAME TARGET [--default] | list [--json] | remove NAME | default NAME``.

Saved machines live in ``<config_dir>/machines.toml`` (:mod:`herdr.remote.machines`),
each a name for an ssh target; ``--machine NAME`` and ``--remote NAME`` use them, and
``herdr agent list --all-machines`` asks every one. No server is involved.
"""

from __future__ import annotations

import os
import sys

from herdr.cli.transport import fail, print_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from herdr.cli.main import Nouns
    from herdr.remote.machines import Machines


def add_machine(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, _lazy, add_verbs

    noun = nouns.add_parser("machine", help=NOUNS["machine"][0])
    verbs = add_verbs(noun, "herdr machine")
    add = verbs.add_parser("add", session=False, help="save an ssh target under a name")
    add.add_argument("name", help="machine name ([A-Za-z0-9._-], up to 64)")
    add.add_argument("target", help="ssh alias, user@host or ssh://user@host:port")
    add.add_argument("--default", action="store_true", help="make it the default machine")
    add.set_defaults(handler=_lazy("herdr.cli.machine", "run_add"))
    listing = verbs.add_parser("list", session=False, help="list saved machines")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_lazy("herdr.cli.machine", "run_list"))
    remove = verbs.add_parser("remove", session=False, help="forget a saved machine")
    remove.add_argument("name")
    remove.set_defaults(handler=_lazy("herdr.cli.machine", "run_remove"))
    default = verbs.add_parser("default", session=False, help="make a saved machine the default")
    default.add_argument("name")
    default.set_defaults(handler=_lazy("herdr.cli.machine", "run_default"))


def _load() -> Machines:
    from herdr.remote import machines_store

    try:
        return machines_store.load(os.environ)
    except ValueError as exc:
        fail("invalid_machines_file", str(exc))


def _save(machines: Machines) -> None:
    from herdr.remote import machines_store

    try:
        machines_store.save(os.environ, machines)
    except OSError as exc:
        fail(
            "machines_save_failed", f"cannot save {machines_store.machines_file(os.environ)}: {exc}"
        )


def run_add(args: argparse.Namespace) -> int:
    from herdr.remote.machines import is_valid_name
    from herdr.remote.target import parse_target

    if not is_valid_name(args.name):
        fail("invalid_machine_name", f"invalid machine name {args.name!r} (use [A-Za-z0-9._-])")
    try:
        parse_target(args.target)
    except ValueError as exc:
        fail("invalid_target", str(exc))
    machines = _load()
    if args.name in machines.targets:
        fail("machine_exists", f"machine {args.name} is already saved (herdr machine remove it)")
    machines.targets[args.name] = args.target
    if args.default or machines.default is None:
        machines.default = args.name
    _save(machines)
    print_json({"name": args.name, "target": args.target, "default": machines.default == args.name})
    return 0


def run_list(args: argparse.Namespace) -> int:
    listing = _load().listing()
    if args.json or not sys.stdout.isatty():
        print_json({"machines": listing})
        return 0
    if not listing:
        sys.stdout.write("no saved machines (herdr machine add NAME TARGET)\n")
        return 0
    width = max(len(str(m["name"])) for m in listing) + 2
    sys.stdout.write(f"  {'NAME'.ljust(width)}TARGET\n")
    for m in listing:
        mark = "*" if m["default"] else " "
        sys.stdout.write(f"{mark} {str(m['name']).ljust(width)}{m['target']}\n")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    machines = _load()
    if args.name not in machines.targets:
        fail("machine_not_found", f"no saved machine named {args.name!r}")
    del machines.targets[args.name]
    if machines.default == args.name:
        machines.default = None
    _save(machines)
    return 0


def run_default(args: argparse.Namespace) -> int:
    machines = _load()
    if args.name not in machines.targets:
        fail("machine_not_found", f"no saved machine named {args.name!r}")
    machines.default = args.name
    _save(machines)
    return 0
