"""``herdr workspace …`` and ``herdr tab …``: one socket method per verb (§3.2)."""

from __future__ import annotations

import argparse

from herdr.cli.common import Params, abs_cwd, add_cwd_env_focus, clean, env_pairs, verb

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from herdr.cli.main import Nouns


def _create(args: argparse.Namespace, **extra: object) -> Params:
    return clean(
        {
            **extra,
            "cwd": abs_cwd(args.cwd),
            "label": args.label,
            "env": env_pairs(args.env),
            "focus": bool(args.focus),
        }
    )


def _ws(args: argparse.Namespace) -> Params:
    return {"workspace_id": args.workspace_id}


def _tab(args: argparse.Namespace) -> Params:
    return {"tab_id": args.tab_id}


def _report_metadata(args: argparse.Namespace) -> Params:
    from herdr.cli.pane import token_patch

    return clean(
        {
            "workspace_id": args.workspace_id,
            "source": args.source,
            "tokens": token_patch(args) or {},
            "seq": args.seq,
            "ttl_ms": args.ttl_ms,
        }
    )


def add_workspace(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, add_verbs

    noun = nouns.add_parser("workspace", help=NOUNS["workspace"][0])
    verbs = add_verbs(noun, "herdr workspace")
    verb(verbs, "list", "list workspaces", "workspace.list", lambda a: {})
    create = verb(
        verbs, "create", "create a workspace (tab t1, pane p1)", "workspace.create", _create
    )
    add_cwd_env_focus(create)
    for name, helptext in (("get", "show a workspace"), ("focus", "focus a workspace")):
        cmd = verb(verbs, name, helptext, f"workspace.{name}", _ws)
        cmd.add_argument("workspace_id", metavar="WORKSPACE")
    rename = verb(
        verbs,
        "rename",
        "rename a workspace",
        "workspace.rename",
        lambda a: {"workspace_id": a.workspace_id, "label": " ".join(a.label)},
    )
    rename.add_argument("workspace_id", metavar="WORKSPACE")
    rename.add_argument("label", nargs="+")
    close = verb(
        verbs,
        "close",
        "close a workspace and its panes",
        "workspace.close",
        lambda a: {**_ws(a), **({"close_group": True} if a.group else {})},
    )
    close.add_argument("workspace_id", metavar="WORKSPACE")
    close.add_argument(
        "--group", action="store_true", help="also close its linked worktree workspaces"
    )
    meta = verb(
        verbs,
        "report-metadata",
        "attach tokens to a workspace",
        "workspace.report_metadata",
        _report_metadata,
        silent=True,
    )
    meta.add_argument("workspace_id", metavar="WORKSPACE")
    from herdr.cli.pane import add_token_args

    add_token_args(meta)


def add_tab(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, add_verbs

    noun = nouns.add_parser("tab", help=NOUNS["tab"][0])
    verbs = add_verbs(noun, "herdr tab")
    listing = verb(
        verbs, "list", "list tabs", "tab.list", lambda a: clean({"workspace_id": a.workspace})
    )
    listing.add_argument("--workspace", metavar="WORKSPACE", help="only this workspace")
    create = verb(
        verbs,
        "create",
        "create a tab (default: in the active workspace)",
        "tab.create",
        lambda a: _create(a, workspace_id=a.workspace),
    )
    create.add_argument("--workspace", metavar="WORKSPACE", help="workspace for the tab")
    add_cwd_env_focus(create)
    for name, helptext in (("get", "show a tab"), ("focus", "focus a tab")):
        cmd = verb(verbs, name, helptext, f"tab.{name}", _tab)
        cmd.add_argument("tab_id", metavar="TAB")
    rename = verb(
        verbs,
        "rename",
        "rename a tab",
        "tab.rename",
        lambda a: {"tab_id": a.tab_id, "label": " ".join(a.label)},
    )
    rename.add_argument("tab_id", metavar="TAB")
    rename.add_argument("label", nargs="+")
    close = verb(
        verbs, "close", "close a tab (the last one closes its workspace)", "tab.close", _tab
    )
    close.add_argument("tab_id", metavar="TAB")
