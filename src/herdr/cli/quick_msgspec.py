"""msgspec imported without ``typing_extensions`` on the start-up paths.

msgspec imports ``typing_extensions`` when it is installed (aiohttp requires it) for two
things Python 3.11's ``typing`` has too: ``get_type_hints`` and ``Required``. That module
imports ``inspect`` (with ``ast``, ``dis``, ``tokenize``): ~12 ms of the ~40 ms that
``import msgspec`` takes on the machine we measure on, before a reattach's first frame
and in the server's start. Hiding it while msgspec loads makes msgspec use ``typing``'s
own; the entry is put back at once, so a later ``import typing_extensions`` (aiohttp's)
works as always.
"""

from __future__ import annotations

import sys


def import_msgspec() -> None:
    """Load msgspec (once) while ``typing_extensions`` reads as absent."""
    if "msgspec" in sys.modules:
        return
    hide = "typing_extensions" not in sys.modules
    if hide:
        sys.modules["typing_extensions"] = None  # type: ignore[assignment]
    try:
        import msgspec  # noqa: F401
    finally:
        if hide and sys.modules.get("typing_extensions", 0) is None:
            del sys.modules["typing_extensions"]
