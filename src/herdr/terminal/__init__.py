"""herdr.terminal package."""

from __future__ import annotations
