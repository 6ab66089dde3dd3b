"""Reading and atomically replacing ``<config_dir>/machines.toml``.

A save writes a private temp file in the same directory, fsyncs it and renames it over
the old file, so a crash leaves either the old list or the new one, never half.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping

from herdr.config import paths
from herdr.remote.machines import FILE_NAME, Machines, parse, render


def machines_file(env: Mapping[str, str]) -> str:
    return os.path.join(paths.config_dir(env), FILE_NAME)


def load(env: Mapping[str, str]) -> Machines:
    """The saved machines (none when the file does not exist)."""
    try:
        with open(machines_file(env), encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return Machines()
    return parse(text)


def save(env: Mapping[str, str], machines: Machines) -> None:
    path = machines_file(env)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(render(machines))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
