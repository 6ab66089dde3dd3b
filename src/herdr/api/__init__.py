"""herdr.api package."""

from __future__ import annotations
