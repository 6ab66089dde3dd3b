"""Detection capture files: one pane's detection input, replayable offline.

``herdr agent capture`` writes what the detection loop saw (screen, OSC title and
progress, foreground process) with the verdict it reached; ``herdr agent explain
--file`` replays it through the same engine, and the test suite turns every file
in ``tests/detect/data/captures/`` into a regression case. A misdetection becomes
a fixture by setting ``expected`` to what the state should have been.

Pure data handling (no I/O) so the CLI, the server and tests share one reading.
"""

from __future__ import annotations

import json

import msgspec
from msgspec import Struct

CAPTURE_FORMAT = "herdr-python/detection-capture/1"
"""The ``format`` key every capture carries; a file without it is a plain screen."""

STATES = ("idle", "working", "blocked", "unknown")


class CaptureError(ValueError):
    """A file that claims to be a capture but does not have a capture's shape."""


class Capture(Struct, frozen=True):
    """A parsed capture; ``expected_*`` default to the recorded verdict."""

    agent: str
    screen: str
    osc_title: str
    osc_progress: str
    verdict_state: str
    verdict_rule: str | None
    expected_state: str
    expected_rule: str | None
    process: dict[str, object] = msgspec.field(default_factory=dict)
    note: str = ""


def build_capture(
    *,
    agent: str,
    detection_input: dict[str, object],
    explain: dict[str, object],
    pane_id: str | None,
) -> dict[str, object]:
    """The capture document for ``agent capture`` from an ``agent.explain`` answer."""
    matched = explain.get("matched_rule")
    rule = matched.get("id") if isinstance(matched, dict) else None
    verdict = {
        "state": explain.get("state"),
        "rule": rule if isinstance(rule, str) else None,
        "visible_idle": explain.get("visible_idle") is True,
        "visible_blocker": explain.get("visible_blocker") is True,
        "visible_working": explain.get("visible_working") is True,
        "manifest_source": explain.get("manifest_source"),
        "manifest_version": explain.get("manifest_version"),
        "screen_detection_skipped": explain.get("screen_detection_skipped") is True,
    }
    process = detection_input.get("process")
    return {
        "format": CAPTURE_FORMAT,
        "agent": agent,
        "pane_id": pane_id,
        "screen": _text(detection_input.get("screen")),
        "osc_title": _text(detection_input.get("osc_title")),
        "osc_progress": _text(detection_input.get("osc_progress")),
        "process": process if isinstance(process, dict) else {},
        "verdict": verdict,
        "expected": {"state": verdict["state"], "rule": verdict["rule"]},
        "note": "",
    }


def dumps_capture(doc: dict[str, object]) -> str:
    """Stable, diff-friendly text (sorted keys, real UTF-8, final newline)."""
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def looks_like_capture(text: str) -> bool:
    """Cheap test before JSON parsing: captures are JSON objects naming the format."""
    return text.lstrip().startswith("{") and CAPTURE_FORMAT in text


def parse_capture(text: str) -> Capture:
    """Parse a capture file; a wrong shape is a :class:`CaptureError` naming the field."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaptureError(f"capture is not valid JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != CAPTURE_FORMAT:
        raise CaptureError(f"capture must be a JSON object with format {CAPTURE_FORMAT!r}")
    # Fields are checked in file order, so the first bad one is the one reported.
    agent = _str(doc.get("agent"), "agent")
    screen = _str(doc.get("screen"), "screen")
    osc_title = _str(doc.get("osc_title", ""), "osc_title")
    osc_progress = _str(doc.get("osc_progress", ""), "osc_progress")
    verdict = _table(doc, "verdict")
    state = _state(verdict.get("state"), "verdict.state")
    rule = _opt_str(verdict.get("rule"), "verdict.rule")
    expected = doc.get("expected")
    expected = expected if isinstance(expected, dict) else {}
    process = doc.get("process")
    return Capture(
        agent=agent,
        screen=screen,
        osc_title=osc_title,
        osc_progress=osc_progress,
        verdict_state=state,
        verdict_rule=rule,
        expected_state=_state(expected.get("state", state), "expected.state"),
        expected_rule=_opt_str(expected.get("rule", rule), "expected.rule"),
        process=process if isinstance(process, dict) else {},
        note=_str(doc.get("note", ""), "note"),
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _table(doc: dict[str, object], key: str) -> dict[str, object]:
    value = doc.get(key)
    if not isinstance(value, dict):
        raise CaptureError(f"capture field {key!r} must be an object")
    return value


def _str(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise CaptureError(f"capture field {key!r} must be a string")
    return value


def _opt_str(value: object, key: str) -> str | None:
    return None if value is None else _str(value, key)


def _state(value: object, key: str) -> str:
    if value not in STATES:
        raise CaptureError(f"capture field {key!r} must be one of {', '.join(STATES)}")
    assert isinstance(value, str)
    return value
