"""herdr.client package."""

from __future__ import annotations
