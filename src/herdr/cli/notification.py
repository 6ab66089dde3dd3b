"""``herdr notification show TITLE [--body …] [--position …] [--sound …]`` (herdr 0.9).

One ``notification.show`` request; the envelope is printed as every verb prints it, so
a script reads ``shown`` and ``reason`` (``no_foreground_client`` when no TUI is
attached). Stdlib argparse only, like the other nouns.
"""

from __future__ import annotations

import argparse

from herdr.cli.common import Params, clean, verb

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from herdr.cli.main import Nouns

POSITIONS = ("top-left", "top-right", "bottom-left", "bottom-right")
SOUNDS = ("none", "done", "request")


def _show(args: argparse.Namespace) -> Params:
    return clean(
        {"title": args.title, "body": args.body, "position": args.position, "sound": args.sound}
    )


def add_notification(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, add_verbs

    noun = nouns.add_parser("notification", help=NOUNS["notification"][0])
    verbs = add_verbs(noun, "herdr notification")
    show = verb(verbs, "show", "show a toast in the attached TUI", "notification.show", _show)
    show.add_argument("title", metavar="TITLE")
    show.add_argument("--body", help="a second line under the title")
    show.add_argument(
        "--position", choices=POSITIONS, help="screen corner (default: ui.toast.herdr.position)"
    )
    show.add_argument("--sound", choices=SOUNDS, help="ring the bell unless none (default)")
