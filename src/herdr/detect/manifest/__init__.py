"""herdr.detect.manifest package."""

from __future__ import annotations
