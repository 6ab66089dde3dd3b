"""herdr.cli package."""

from __future__ import annotations
