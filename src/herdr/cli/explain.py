"""``herdr agent explain``: why detection sees an agent's screen the way it does.

Offline mode (``--file SCREEN --agent LABEL``) runs the engine in this process against
the same manifest layers the server would use, so rule authors can iterate without a
server. Live mode asks the server to explain a running agent's current screen.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys

from herdr.cli.main import CliError, UsageError
from herdr.detect.capture import Capture, CaptureError, looks_like_capture, parse_capture

MAX_SCREEN_BYTES = 16 * 1024 * 1024


def run_explain(args: argparse.Namespace) -> int:
    if args.file is None and args.agent is None:
        if args.target is None:
            raise UsageError("agent explain needs a target, or --file SCREEN --agent LABEL")
        return _run_live(args)
    if args.target is not None:
        raise UsageError("give either a target or --file/--agent, not both")
    if args.file is None:
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


def _load_input(args: argparse.Namespace) -> tuple[str, str, str, str, Capture | None]:
    """Agent, screen, OSC title and progress from a screen file or a capture file.

    A capture (``herdr agent capture``) carries all four; ``--agent``, ``--osc-title``
    and ``--osc-progress`` given on the command line still win.
    """
    try:
        text = _read_screen(args.file)
    except CliError:
        if args.agent is None:  # without --agent only a readable capture file will do
            raise UsageError("--file needs --agent unless it is a capture file") from None
        raise
    capture: Capture | None = None
    if looks_like_capture(text):
        try:
            capture = parse_capture(text)
        except CaptureError as exc:
            raise CliError(f"invalid capture file {args.file}: {exc}") from None
    if capture is None and args.agent is None:
        raise UsageError("--file needs --agent unless it is a capture file")
    screen = capture.screen if capture is not None else text
    agent = args.agent if args.agent is not None else capture.agent if capture else ""
    title, progress = args.osc_title, args.osc_progress
    if capture is not None:
        title = capture.osc_title if title is None else title
        progress = capture.osc_progress if progress is None else progress
    return agent, screen, title or "", progress or "", capture


def _capture_lines(capture: Capture) -> str:
    recorded = f"{capture.verdict_state} (rule {capture.verdict_rule or 'none'})"
    expected = f"{capture.expected_state} (rule {capture.expected_rule or 'any'})"
    return f"capture: recorded {recorded}; expected {expected}\n"


def _why_lines(doc: dict[str, object]) -> str:
    """``matched:`` lines after herdr's text output: what the deciding rule recognised."""
    from herdr.detect.manifest.rustfmt import debug_str

    lines = doc.get("matched_lines")
    if not isinstance(lines, list):
        return ""
    return "".join(f"matched: {debug_str(line)}\n" for line in lines if isinstance(line, str))


def _run_offline(args: argparse.Namespace) -> int:
    label, screen, osc_title, osc_progress, capture = _load_input(args)

    from herdr.detect.agents import parse_agent_label
    from herdr.detect.manifest import DetectionInput, evaluate, explain_dict, explain_text
    from herdr.detect.manifest.decision import decision_fields
    from herdr.detect.manifest.sources import (
        SOURCE_OVERRIDE,
        ManifestCache,
        ManifestDirs,
        read_update_status,
    )
    from herdr.detect.manifest.why import matched_lines

    dirs = ManifestDirs.from_env(os.environ)
    cache = ManifestCache(dirs)
    cache.user_kinds.load()  # user kinds parse as labels too
    agent = parse_agent_label(label)
    if agent is None:
        doc = explain_dict(
            agent=label,
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
        raise CliError(f"unknown agent {label!r}")

    inp = DetectionInput(screen=screen, osc_title=osc_title, osc_progress=osc_progress)
    loaded = cache.load_one(agent)
    manifest = loaded.manifest if loaded is not None else None
    status = read_update_status(dirs.status_file).get(agent.label)
    evaluation = evaluate(manifest, inp)
    doc = explain_dict(
        agent=agent.label,
        evaluation=evaluation,
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
    doc.update(decision_fields(loaded))
    doc["osc_title"] = inp.osc_title
    doc["osc_progress"] = inp.osc_progress
    doc["matched_lines"] = matched_lines(evaluation)
    if capture is not None:
        doc["capture"] = {
            "recorded_state": capture.verdict_state,
            "recorded_rule": capture.verdict_rule,
            "expected_state": capture.expected_state,
            "expected_rule": capture.expected_rule,
        }
    if args.json:
        _print_json(doc)
    elif not override_rejected:
        sys.stdout.write(explain_text(doc, verbose=args.verbose))
        sys.stdout.write(_why_lines(doc))
        if capture is not None:
            sys.stdout.write(_capture_lines(capture))
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

    doc = explain if isinstance(explain, dict) else {}
    sys.stdout.write(explain_text(doc, verbose=args.verbose) + _why_lines(doc))
    return 0


def run_capture(args: argparse.Namespace) -> int:
    """``herdr agent capture``: write a pane's detection input as a replayable fixture."""
    from herdr.cli.transport import request_or_exit
    from herdr.detect.capture import build_capture, dumps_capture

    params = {"target": args.target, "include_input": True}
    envelope = request_or_exit(args, "agent.explain", params)
    result = envelope["result"]
    explain = result.get("explain") if isinstance(result, dict) else None
    explain = explain if isinstance(explain, dict) else {}
    detection_input = explain.get("detection_input")
    if not isinstance(detection_input, dict):
        raise CliError("the server did not return the detection input (server too old?)")
    pane_id = detection_input.get("pane_id")
    doc = build_capture(
        agent=str(explain.get("agent") or "unknown"),
        detection_input=detection_input,
        explain=explain,
        pane_id=pane_id if isinstance(pane_id, str) else None,
    )
    text = dumps_capture(doc)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    _write_atomically(args.out, text)
    verdict = doc["verdict"]
    assert isinstance(verdict, dict)
    rule = verdict.get("rule") or "none"
    sys.stdout.write(f"wrote {args.out}: {doc['agent']} {verdict.get('state')} (rule {rule})\n")
    return 0


def _write_atomically(path: str, text: str) -> None:
    """Write next to ``path`` and rename, so a failed write never leaves half a fixture."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CliError(f"cannot write capture {path}: {exc.strerror or exc}") from None
