"""herdr.config package."""

from __future__ import annotations
