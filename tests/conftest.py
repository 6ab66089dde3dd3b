"""Registers the shared fixtures; they and every test helper live in :mod:`herdr_testing`.

Nothing is defined or re-exported here: tests import from ``herdr_testing``, never from
``conftest`` (a sub-folder's conftest would shadow the name when folders run together).
"""

from __future__ import annotations

pytest_plugins = ["herdr_testing.pytest_plugin"]
