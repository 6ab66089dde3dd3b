"""herdr: a terminal multiplexer whose panes are the homes of AI coding agents."""

from __future__ import annotations

__version__ = "0.1.0"
PROTOCOL_VERSION = 22
