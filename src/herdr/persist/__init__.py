"""herdr.persist package."""

from __future__ import annotations
