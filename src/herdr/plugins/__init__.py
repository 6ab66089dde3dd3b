"""Plugins v1 (spec §9): ``herdr-plugin.toml`` manifests, the ``plugins.json`` registry,
and running plugin commands (actions, event hooks, startup) as argv, never a shell."""

from __future__ import annotations
