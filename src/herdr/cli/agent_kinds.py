"""``herdr agent kinds``: built-in and user-defined agent kinds and where each comes from.

Offline (no server): it reads the same files the server loads, so a user can check a
new kind file before reloading. Exit status 1 when a kind file has a diagnostic.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def kinds_document(env: dict[str, str]) -> dict[str, object]:
    """Every kind (built-in first, in enum order; then user kinds by label) and errors."""
    from herdr.config import paths
    from herdr.detect.agents import AGENT_INFO, ALL_AGENTS
    from herdr.detect.user_registry import UserKindRegistry

    registry = UserKindRegistry(os.path.join(paths.config_dir(env), "agents"))
    registry.load()
    override_dir = paths.manifest_override_dir(env)
    kinds: list[dict[str, object]] = []
    for agent in ALL_AGENTS:
        info = AGENT_INFO[agent]
        override = os.path.join(override_dir, f"{agent.label}.toml")
        manifest = None
        if info.manifest_file is not None:
            manifest = override if os.path.exists(override) else "bundled"
        kinds.append(
            {
                "label": agent.label,
                "name": info.name,
                "source": "built-in",
                "path": None,
                "process_names": list(info.lookup_names),
                "manifest": manifest,
            }
        )
    for kind in registry.kinds.values():
        spec = kind.spec
        kinds.append(
            {
                "label": spec.label,
                "name": spec.name,
                "source": "user",
                "path": spec.path,
                "process_names": list(spec.lookup_names),
                "argv_patterns": list(spec.argv_patterns),
                "command": list(spec.command),
                "resume": list(spec.resume) if spec.resume is not None else None,
                "manifest": kind.manifest_path,
                "manifest_version": kind.manifest.version,
            }
        )
    return {"kinds": kinds, "errors": list(registry.errors)}


def run_kinds(args: argparse.Namespace) -> int:
    doc = kinds_document(dict(os.environ))
    if args.json:
        sys.stdout.write(json.dumps(doc, sort_keys=True, ensure_ascii=False) + "\n")
    else:
        for kind in doc["kinds"]:  # type: ignore[attr-defined]
            where = kind["path"] if kind["source"] == "user" else "built-in"
            sys.stdout.write(f"{kind['label']:<12} {kind['name']:<14} {where}\n")
        for error in doc["errors"]:  # type: ignore[attr-defined]
            sys.stderr.write(f"herdr: {error}\n")
    return 1 if doc["errors"] else 0
