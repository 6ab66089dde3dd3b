"""The argparse classes of the CLI, imported only when a command line is parsed.

Kept out of :mod:`herdr.cli.main` so that importing ``main`` (which the ``herdr``
console script does) costs no argparse/gettext/re: the simple verbs of
:mod:`herdr.cli.fast` never need them.
"""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from typing import Any


def _terminal_width() -> int:
    """``shutil.get_terminal_size`` without importing shutil (and bz2, lzma, ...)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns - 2


class _Formatter(argparse.HelpFormatter):
    # argparse builds a formatter for every add_argument(); the default one imports
    # shutil just to ask for the terminal width, which costs each CLI call ~5 ms.
    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or _terminal_width())


class Parser(argparse.ArgumentParser):
    """Every (sub)parser uses the light formatter (subparsers inherit the class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)
