"""``herdr agent explain``: why detection sees an agent's screen the way it does.

Offline mode (``--file SCREEN --agent LABEL``) runs the engine in this process against
the same manifest layers the server would use, so rule authors can iterate without a
server. Live mode asks the server to explain a running agent's current screen.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from herdr.cli.main import CliError, UsageError

MAX_SCREEN_BYTES = 16 * 1024 * 1024


def run_explain(args: argparse.Namespace) -> int:
    if args.file is None and args.agent is None:
        if args.target is None:
            raise UsageError("agent explain needs a target, or --file SCREEN --agent LABEL")
        return _run_live(args)
    if args.target is not None:
        raise UsageError("give either a target or --file/--agent, not both")
    if args.file is None or args.agent is None:
        raise UsageError("--file and --agent must be given together")
    return _run_offline(args)


def _read_screen(path: str) -> str:
    """Read a saved screen; undecodable bytes become U+FFFD rather than failing."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SCREEN_BYTES + 1)
    except IsADirectoryError:
        raise CliError(f"cannot read screen file {path}: is a directory") from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise CliError(f"cannot read screen file {path}: {reason}") from None
    if len(data) > MAX_SCREEN_BYTES:
        raise CliError(f"screen file {path} is larger than {MAX_SCREEN_BYTES} bytes")
    return data.decode("utf-8", errors="replace")


def _run_offline(args: argparse.Namespace) -> int:
    screen = _read_screen(args.file)

    from herdr.detect.agents import SCREEN_MANIFEST_AGENTS, parse_agent_label
    from herdr.detect.manifest import DetectionInput, evaluate, explain_dict, explain_text
    from herdr.detect.manifest.sources import (
        SOURCE_OVERRIDE,
        ManifestCache,
        ManifestDirs,
        read_update_status,
    )

    agent = parse_agent_label(args.agent)
    if agent is None:
        doc = explain_dict(
            agent=args.agent,
            evaluation=None,
            manifest=None,
            manifest_source=None,
            cached_remote_version=None,
            local_override_shadowing_remote=False,
            remote_update_status=None,
            remote_update_error=None,
            warning=None,
            unknown_agent=True,
        )
        if args.json:
            _print_json(doc)
        raise CliError(f"unknown agent {args.agent!r}")

    inp = DetectionInput(screen=screen, osc_title=args.osc_title, osc_progress=args.osc_progress)
    dirs = ManifestDirs.from_env(os.environ)
    loaded = ManifestCache(dirs).load_one(agent) if agent in SCREEN_MANIFEST_AGENTS else None
    manifest = loaded.manifest if loaded is not None else None
    status = read_update_status(dirs.status_file).get(agent.label)
    doc = explain_dict(
        agent=agent.label,
        evaluation=evaluate(manifest, inp),
        manifest=manifest,
        manifest_source=loaded.source_display if loaded is not None else None,
        cached_remote_version=loaded.cached_remote_version if loaded is not None else None,
        local_override_shadowing_remote=(
            loaded.local_override_shadowing_remote if loaded is not None else False
        ),
        remote_update_status=status.last_result if status is not None else None,
        remote_update_error=status.last_error if status is not None else None,
        warning=loaded.warning if loaded is not None else None,
    )
    override_path = dirs.override_dir / f"{agent.label}.toml"
    override_rejected = (
        loaded is not None
        and loaded.source_kind != SOURCE_OVERRIDE
        and override_path.exists()
        and loaded.warning is not None
    )
    if args.json:
        _print_json(doc)
    elif not override_rejected:
        sys.stdout.write(explain_text(doc, verbose=args.verbose))
    if override_rejected:
        assert loaded is not None and loaded.warning is not None
        raise CliError(f"invalid override manifest: {loaded.warning}")
    return 0


def _print_json(doc: object) -> None:
    sys.stdout.write(json.dumps(doc, sort_keys=True, ensure_ascii=False) + "\n")


def _run_live(args: argparse.Namespace) -> int:
    from herdr.cli.transport import request_or_exit

    envelope = request_or_exit(args, "agent.explain", {"target": args.target})
    result = envelope["result"]
    explain = result.get("explain") if isinstance(result, dict) else None
    if args.json:
        _print_json(explain)
        return 0
    from herdr.detect.manifest import explain_text

    sys.stdout.write(
        explain_text(explain if isinstance(explain, dict) else {}, verbose=args.verbose)
    )
    return 0
