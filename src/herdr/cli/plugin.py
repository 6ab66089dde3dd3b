"""``herdr plugin …``: link/install plugins, run their actions, read their logs (spec §9).

``link``, ``install``, ``uninstall`` and ``config-dir`` change or read the registry file
and work without a server (as in herdr); the rest are one request on the socket. Only
argparse/os/sys here; the registry and installer are imported when a verb runs.
"""

from __future__ import annotations

import argparse
import os
import sys

from herdr.cli.common import Params, abs_cwd, clean, env_pairs, verb
from herdr.cli.main import CliError

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from typing import Any

    from herdr.cli.main import Nouns

PLACEMENTS = ("overlay", "popup", "split", "tab", "zoomed")


def _size(value: str) -> int | str:
    if value.endswith("%"):
        return value
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected cells or NN%, got {value!r}") from None


def add_plugin(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, add_verbs, session_parent

    noun = nouns.add_parser("plugin", help=NOUNS["plugin"][0])
    verbs = add_verbs(noun, "herdr plugin")

    link = verbs.add_parser("link", help="register a local plugin directory", session=False)
    link.add_argument("path", metavar="<path>", help="plugin directory or herdr-plugin.toml")
    link.add_argument("--disabled", action="store_true", help="register it disabled")
    link.add_argument("--json", action="store_true", help="print the plugin as JSON")
    link.set_defaults(handler=run_link)

    install = verbs.add_parser("install", help="install a plugin from GitHub", session=False)
    install.add_argument("source", metavar="<owner>/<repo>[/subdir]")
    install.add_argument("--ref", metavar="R", help="branch, tag or commit to pin")
    install.add_argument("--yes", action="store_true", help="skip the preview confirmation")
    install.set_defaults(handler=run_install)

    uninstall = verbs.add_parser("uninstall", help="remove an installed plugin", session=False)
    uninstall.add_argument("target", metavar="<id|owner/repo>")
    uninstall.set_defaults(handler=run_uninstall)

    config = verbs.add_parser(
        "config-dir", help="print (and create) a plugin's config directory", session=False
    )
    config.add_argument("plugin_id", metavar="<id>")
    config.set_defaults(handler=run_config_dir)

    listing = verbs.add_parser("list", help="list registered plugins")
    listing.add_argument("--plugin", dest="plugin_id", metavar="ID", help="only this plugin")
    listing.add_argument("--json", action="store_true", help="print the JSON envelope")
    listing.set_defaults(handler=run_list)

    for name, method in (
        ("unlink", "plugin.unlink"),
        ("enable", "plugin.enable"),
        ("disable", "plugin.disable"),
    ):
        cmd = verb(verbs, name, f"{name} a plugin", method, _plugin_id)
        cmd.add_argument("plugin_id", metavar="<id>")

    action = verbs.add_parser("action", help="list or invoke plugin actions", session=False)
    action_verbs = action.add_subparsers(dest="sub", metavar="<verb>", required=True)
    a_list = action_verbs.add_parser("list", help="list actions", parents=[session_parent()])
    a_list.add_argument("--plugin", dest="plugin_id", metavar="ID")
    a_list.set_defaults(handler=_call("plugin.action.list", _optional_plugin))
    a_invoke = action_verbs.add_parser("invoke", help="run an action", parents=[session_parent()])
    a_invoke.add_argument("action_id", metavar="<action>", help="<action> or <plugin>.<action>")
    a_invoke.add_argument("--plugin", dest="plugin_id", metavar="ID")
    a_invoke.set_defaults(handler=_call("plugin.action.invoke", _invoke))

    logs = verbs.add_parser("log", help="plugin run logs", session=False)
    log_verbs = logs.add_subparsers(dest="sub", metavar="<verb>", required=True)
    l_list = log_verbs.add_parser("list", help="recent runs", parents=[session_parent()])
    l_list.add_argument("--plugin", dest="plugin_id", metavar="ID")
    l_list.add_argument("--limit", type=int, metavar="N")
    l_list.set_defaults(handler=_call("plugin.log.list", _log_list))

    pane = verbs.add_parser("pane", help="open, focus or close plugin panes", session=False)
    pane_verbs = pane.add_subparsers(dest="sub", metavar="<verb>", required=True)
    p_open = pane_verbs.add_parser("open", help="open a plugin pane", parents=[session_parent()])
    p_open.add_argument("--plugin", dest="plugin_id", metavar="ID", required=True)
    p_open.add_argument("--entrypoint", metavar="ID", required=True)
    p_open.add_argument("--placement", choices=PLACEMENTS)
    p_open.add_argument("--width", type=_size, metavar="CELLS|NN%")
    p_open.add_argument("--height", type=_size, metavar="CELLS|NN%")
    p_open.add_argument("--workspace", dest="workspace_id", metavar="ID")
    p_open.add_argument("--target-pane", dest="target_pane_id", metavar="ID")
    p_open.add_argument("--direction", choices=("right", "down"))
    p_open.add_argument("--cwd", metavar="DIR")
    p_open.add_argument("--env", action="append", metavar="K=V")
    p_open.add_argument("--focus", action="store_true", default=None)
    p_open.set_defaults(handler=_call("plugin.pane.open", _pane_open))
    for name, method in (("focus", "plugin.pane.focus"), ("close", "plugin.pane.close")):
        cmd = pane_verbs.add_parser(name, help=f"{name} a plugin pane", parents=[session_parent()])
        cmd.add_argument("pane_id", metavar="<pane>")
        cmd.set_defaults(handler=_call(method, lambda a: {"pane_id": a.pane_id}))


# --- socket verbs ---------------------------------------------------------------------


def _call(method: str, build: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        from herdr.cli.transport import call_and_print

        return call_and_print(args, method, build(args))

    return run


def _plugin_id(args: argparse.Namespace) -> Params:
    return {"plugin_id": args.plugin_id}


def _optional_plugin(args: argparse.Namespace) -> Params:
    return clean({"plugin_id": args.plugin_id})


def _invoke(args: argparse.Namespace) -> Params:
    context = clean(
        {
            "invocation_source": "cli",
            "focused_pane_id": os.environ.get("HERDR_PANE_ID") or None,
        }
    )
    return clean({"action_id": args.action_id, "plugin_id": args.plugin_id, "context": context})


def _log_list(args: argparse.Namespace) -> Params:
    if args.limit is not None and args.limit < 0:
        from herdr.cli.main import UsageError

        raise UsageError("--limit must be 0 or more")
    return clean({"plugin_id": args.plugin_id, "limit": args.limit})


def _pane_open(args: argparse.Namespace) -> Params:
    return clean(
        {
            "plugin_id": args.plugin_id,
            "entrypoint": args.entrypoint,
            "placement": args.placement,
            "width": args.width,
            "height": args.height,
            "workspace_id": args.workspace_id,
            "target_pane_id": args.target_pane_id,
            "direction": args.direction,
            "cwd": abs_cwd(args.cwd),
            "env": env_pairs(args.env),
            "focus": args.focus,
        }
    )


def run_list(args: argparse.Namespace) -> int:
    from herdr.cli.transport import print_json, request_or_exit

    envelope = request_or_exit(args, "plugin.list", _optional_plugin(args))
    if args.json:
        print_json(envelope)
        return 0
    plugins = envelope.get("result", {}).get("plugins", [])
    if not plugins:
        print("no plugins (herdr plugin link <path> to add one)")
    for info in plugins:
        print(_describe(info))
    return 0


def _describe(info: dict[str, Any]) -> str:
    state = "enabled" if info.get("enabled") else "disabled"
    source = info.get("source") or {}
    origin = info.get("plugin_root", "")
    if source.get("kind") == "github":
        origin = f"github:{source.get('owner')}/{source.get('repo')}"
        if source.get("subdir"):
            origin += f"/{source['subdir']}"
        if source.get("resolved_commit"):
            origin += f"@{str(source['resolved_commit'])[:12]}"
    counts = ", ".join(
        f"{len(info[k])} {k.replace('_', ' ')}"
        for k in ("actions", "events", "panes", "link_handlers", "startup")
        if info.get(k)
    )
    lines = [f"{info['plugin_id']} {info.get('version', '')} {state}  {origin}"]
    if counts:
        lines.append(f"  {counts}")
    for warning in info.get("warnings", ()):
        lines.append(f"  warning: {warning}")
    return "\n".join(lines)


# --- local verbs ----------------------------------------------------------------------


def _fail(exc: Any) -> CliError:
    return CliError(f"{exc.code}: {exc.message}")


def run_link(args: argparse.Namespace) -> int:
    from herdr.plugins.manifest import ManifestError
    from herdr.plugins.registry import Registry, RegistryError

    try:
        info = Registry.of(os.environ).link(args.path, enabled=not args.disabled)
    except (ManifestError, RegistryError) as exc:
        raise _fail(exc) from None
    if args.json:
        from herdr.cli.transport import print_json

        print_json({"plugin": info})
        return 0
    for warning in info.get("warnings", ()):
        sys.stderr.write(f"warning: {warning}\n")
    state = "enabled" if info["enabled"] else "disabled"
    print(f"linked {info['plugin_id']} {info['version']} ({state}) from {info['plugin_root']}")
    return 0


def run_config_dir(args: argparse.Namespace) -> int:
    from herdr.plugins.registry import RegistryError, check_plugin_id, plugin_config_dir

    try:
        path = plugin_config_dir(os.environ, check_plugin_id(args.plugin_id))
    except RegistryError as exc:
        raise _fail(exc) from None
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    print(path)
    return 0


def run_install(args: argparse.Namespace) -> int:
    from herdr.plugins import install

    try:
        staged = install.stage(os.environ, args.source, args.ref)
    except install.InstallError as exc:
        raise _fail(exc) from None
    try:
        print(staged.preview())
        if not args.yes:
            if not sys.stdin.isatty():
                raise CliError(
                    "confirmation_required: review the commands above, then rerun with --yes"
                )
            answer = input("install and run its build steps? [y/N] ").strip().lower()
            if answer not in ("y", "yes"):
                print("not installed")
                return 1
        info = install.finish(os.environ, staged, print)
    except install.InstallError as exc:
        raise _fail(exc) from None
    finally:
        staged.discard()
    print(f"installed {info['plugin_id']} {info['version']} into {info['plugin_root']}")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from herdr.plugins import install
    from herdr.plugins.registry import RegistryError

    try:
        plugin_id, removed_files = install.uninstall(os.environ, args.target)
    except (install.InstallError, RegistryError) as exc:
        raise _fail(exc) from None
    suffix = " and its checkout" if removed_files else ""
    print(f"uninstalled {plugin_id}{suffix}")
    return 0
