"""Which processes are still alive, found by an entry of their environment (tests give
each child a marker, so a leak is found whatever pid it got)."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Running (or sleeping), not a zombie nor gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def live_with_env(entry: str) -> list[int]:
    """Live processes whose environment holds ``entry`` (``NAME=value``) exactly."""
    wanted = entry.encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if wanted not in handle.read().split(b"\0"):
                    continue
        except OSError:
            continue
        if alive(int(name)):
            found.append(int(name))
    return found
