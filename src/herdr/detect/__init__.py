"""herdr.detect package."""

from __future__ import annotations
