"""herdr.runtime package."""

from __future__ import annotations
