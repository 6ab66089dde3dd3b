"""``herdr worktree list|create|open|remove``: git worktrees opened as workspaces.

Flags follow herdr 0.9: the repository comes from ``--workspace`` or ``--cwd`` (default:
the active workspace); relative ``--cwd``/``--path`` are made absolute here, as the API
wants them.
"""

from __future__ import annotations

import argparse

from herdr.cli.common import Params, abs_cwd, clean

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from herdr.cli.common import Build
    from herdr.cli.main import LazyVerbs, Nouns

TIMEOUT = 90.0  # seconds: git may check out a large tree (the server stops git at 30 s)


def _verb(
    verbs: LazyVerbs, name: str, helptext: str, method: str, build: Build
) -> argparse.ArgumentParser:
    parser = verbs.add_parser(name, help=helptext)

    def run(args: argparse.Namespace) -> int:
        from herdr.cli.transport import call_and_print

        return call_and_print(args, method, build(args), timeout=TIMEOUT)

    parser.set_defaults(handler=run)
    parser.add_argument(
        "--trust-repository",
        action="store_true",
        help="trust a repository git refuses for its owner (safe.directory); remembered",
    )
    return parser


def _source(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workspace", metavar="WORKSPACE", help="the repository's workspace")
    where.add_argument("--cwd", metavar="DIR", help="a directory inside the repository")


def _label_focus(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--label", help="label of the worktree's workspace")
    focus = parser.add_mutually_exclusive_group()
    focus.add_argument("--focus", dest="focus", action="store_true", help="take focus")
    focus.add_argument(
        "--no-focus", dest="focus", action="store_false", help="do not take focus (default)"
    )


def _common(args: argparse.Namespace) -> Params:
    return {
        "workspace_id": args.workspace,
        "cwd": abs_cwd(args.cwd),
        "trust_repository": True if args.trust_repository else None,
    }


def _list(args: argparse.Namespace) -> Params:
    return clean(_common(args))


def _create(args: argparse.Namespace) -> Params:
    return clean(
        {
            **_common(args),
            "branch": args.branch,
            "base": args.base,
            "path": abs_cwd(args.path),
            "label": args.label,
            "focus": bool(args.focus),
        }
    )


def _open(args: argparse.Namespace) -> Params:
    return clean(
        {
            **_common(args),
            "branch": args.branch,
            "path": abs_cwd(args.path),
            "label": args.label,
            "focus": bool(args.focus),
        }
    )


def _remove(args: argparse.Namespace) -> Params:
    return clean(
        {
            "workspace_id": args.workspace,
            "force": bool(args.force),
            "trust_repository": True if args.trust_repository else None,
        }
    )


def add_worktree(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, add_verbs

    noun = nouns.add_parser("worktree", help=NOUNS["worktree"][0])
    verbs = add_verbs(noun, "herdr worktree")
    listing = _verb(verbs, "list", "list the repository's worktrees", "worktree.list", _list)
    _source(listing)
    create = _verb(
        verbs,
        "create",
        "create a worktree (a new branch from --base, or an existing one) and open it",
        "worktree.create",
        _create,
    )
    _source(create)
    create.add_argument("--branch", help="branch to check out or create (default: generated)")
    create.add_argument("--base", help="where a new branch starts (default: HEAD)")
    create.add_argument(
        "--path", metavar="DIR", help="checkout path (default: worktrees.directory/<repo>/<branch>)"
    )
    _label_focus(create)
    opened = _verb(
        verbs, "open", "open an existing worktree as a workspace", "worktree.open", _open
    )
    _source(opened)
    which = opened.add_mutually_exclusive_group(required=True)
    which.add_argument("--path", metavar="DIR", help="the worktree's checkout path")
    which.add_argument("--branch", help="the branch checked out in it")
    _label_focus(opened)
    remove = _verb(
        verbs,
        "remove",
        "git worktree remove, then close its workspace (the branch is kept)",
        "worktree.remove",
        _remove,
    )
    remove.add_argument("--workspace", metavar="WORKSPACE", required=True, help="its workspace")
    remove.add_argument(
        "--force", action="store_true", help="remove even with modified or untracked files"
    )
