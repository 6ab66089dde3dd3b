"""What a server is: where its socket and directories are, and which herdr it runs.

A leaf (no asyncio, no orjson) so ``herdr server`` can build one before anything heavy
loads, and so every part of the server can take it without importing the others.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from herdr import PROTOCOL_VERSION, __version__


@dataclass(frozen=True)
class ServerInfo:
    socket_path: Path
    session: str | None  # None = default session (or an explicit socket path)
    data_dir: Path
    state_dir: Path
    version: str = __version__
    protocol: int = PROTOCOL_VERSION
    started_at: float = field(default_factory=time.time)
