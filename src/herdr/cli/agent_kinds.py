"""``herdr agent kinds``: built-in and user-defined agent kinds and where each comes from.

Offline (no server): it reads the same files the server loads, so a user can check a
new kind file before reloading. Exit status 1 when a kind file has a diagnostic (also
a shared name, or an override refused for its owner or mode).
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def _override_or_bundled(override: str, errors: list[str]) -> str:
    """The override path when one is there to use; a refused one (owner, mode, a
    foreign link) is a diagnostic and the bundled rules stay."""
    from pathlib import Path

    from herdr.detect.manifest import ManifestError
    from herdr.detect.manifest.sources import read_override
    from herdr.detect.owned_files import UntrustedFile

    try:
        read_override(Path(override))
    except FileNotFoundError:
        return "bundled"
    except UntrustedFile as exc:
        if str(exc) not in errors:  # a refused directory: once, not once per agent
            errors.append(str(exc))
        return "bundled"
    except (ManifestError, OSError):
        pass  # an invalid override: the server reports it in that agent's warning
    return override


def kinds_document(env: dict[str, str]) -> dict[str, object]:
    """Every kind (built-in first, in enum order; then user kinds by label) and errors."""
    from herdr.config import paths
    from herdr.detect.agents import AGENT_INFO, ALL_AGENTS
    from herdr.detect.user_registry import UserKindRegistry

    registry = UserKindRegistry(os.path.join(paths.config_dir(env), "agents"))
    registry.load()
    errors = registry.diagnostics
    override_dir = paths.manifest_override_dir(env)
    kinds: list[dict[str, object]] = []
    for agent in ALL_AGENTS:
        info = AGENT_INFO[agent]
        override = os.path.join(override_dir, f"{agent.label}.toml")
        manifest = None
        if info.manifest_file is not None:
            manifest = _override_or_bundled(override, errors)
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
    return {"kinds": kinds, "errors": errors}


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
