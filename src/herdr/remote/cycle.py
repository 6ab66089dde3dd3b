"""``prefix+m``: one TUI run after another, each on the machine the last one chose.

Each run (this computer's server, or a saved machine's over ``--remote``) ends with
an exit code, or with a :class:`Switch` naming where to attach next (PURE driver).
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct


class Switch(Struct, frozen=True):
    """Attach to ``machine`` next (``None``: this computer's server)."""

    machine: str | None


Run = Callable[[str | None], "int | Switch"]


def drive(first: str | None, run: Run) -> int:
    """Run on ``first``, then wherever each run switches to, until one exits."""
    target = first
    while True:
        result = run(target)
        if isinstance(result, int):
            return result
        target = result.machine
