"""Detection vectors of detection-spec §11.1 against herdr's bundled manifests.

Each row of ``data/detection_vectors.json`` gives an agent, a detection screen,
the OSC title/progress strings and the expected outcome: state, winning rule id
(``null`` when no rule matched and the idle fallback applied) and the visible
flags (``I`` visible_idle, ``B`` visible_blocker, ``W`` visible_working,
``S`` skip_state_update, ``-`` none).
"""

from __future__ import annotations

import functools
import json
from importlib.resources import files
from pathlib import Path
from typing import TypedDict

import pytest

from herdr.detect.manifest import DetectionInput, Manifest, evaluate, parse_manifest

DATA_FILE = Path(__file__).parent / "data" / "detection_vectors.json"

FALLBACK_REASON = "default_known_agent_idle_fallback"

# canonical label -> bundled manifest file (detection-spec §1); omp and
# mastracode have no screen manifest.
MANIFEST_FILES: dict[str, str | None] = {
    "pi": "pi.toml",
    "claude": "claude.toml",
    "codex": "codex.toml",
    "gemini": "gemini.toml",
    "cursor": "cursor.toml",
    "devin": "devin.toml",
    "agy": "antigravity.toml",
    "cline": "cline.toml",
    "omp": None,
    "mastracode": None,
    "opencode": "opencode.toml",
    "copilot": "github-copilot.toml",
    "kimi": "kimi.toml",
    "kiro": "kiro.toml",
    "droid": "droid.toml",
    "amp": "amp.toml",
    "grok": "grok.toml",
    "hermes": "hermes.toml",
    "kilo": "kilo.toml",
    "qodercli": "qodercli.toml",
    "qwen": "qwen.toml",
    "maki": "maki.toml",
}


class Vector(TypedDict):
    id: str
    agent: str
    screen: str
    osc_title: str
    osc_progress: str
    state: str
    rule: str | None
    vis: str


def _load_vectors() -> list[Vector]:
    rows: list[Vector] = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return rows


VECTORS = _load_vectors()


@functools.cache
def bundled_manifest(agent: str) -> Manifest | None:
    """Parse (once) the bundled manifest of ``agent``; ``None`` for omp/mastracode."""
    name = MANIFEST_FILES[agent]
    if name is None:
        return None
    text = (files("herdr.detect") / "manifests" / name).read_text(encoding="utf-8")
    return parse_manifest(text)


def vis_flags(
    *, visible_idle: bool, visible_blocker: bool, visible_working: bool, skip: bool
) -> str:
    flags = "".join(
        letter
        for letter, on in (
            ("I", visible_idle),
            ("B", visible_blocker),
            ("W", visible_working),
            ("S", skip),
        )
        if on
    )
    return flags or "-"


def test_fixture_covers_the_spec_table() -> None:
    ids = [v["id"] for v in VECTORS]
    assert len(ids) == 92
    assert len(set(ids)) == len(ids)
    assert {v["agent"] for v in VECTORS} <= set(MANIFEST_FILES)
    assert {v["vis"] for v in VECTORS} <= {"I", "B", "W", "S", "-"}


def test_fixture_decoding_spot_checks() -> None:
    by_id = {v["id"]: v for v in VECTORS}
    # single backslashes in a Windows path
    assert "> You are in C:\\Users\\user\\project\n" in by_id["T18"]["screen"]
    assert "\\\\" not in by_id["T18"]["screen"]
    # "\|" in a table cell is a literal pipe
    assert by_id["T16"]["osc_title"] == "[ . ] Action Required | llm-proxy"
    # padding spaces are not part of the string, inner spaces are
    assert by_id["A4"]["screen"] == "  ╰ opus streaming ───────── 12s\n"
    assert by_id["A6"]["screen"] == "> \n"
    # ∅ and empty cells are empty strings
    assert by_id["T7"]["screen"] == ""
    assert by_id["T10"]["osc_title"] == ""
    assert by_id["T10"]["osc_progress"] == "4;3;"
    assert by_id["T10"]["rule"] is None


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_detection_vector(vector: Vector) -> None:
    manifest = bundled_manifest(vector["agent"])
    result = evaluate(
        manifest,
        DetectionInput(
            screen=vector["screen"],
            osc_title=vector["osc_title"],
            osc_progress=vector["osc_progress"],
        ),
    )
    detection = result.detection
    winner = None if result.winner is None else result.winner.id
    got = (
        detection.state,
        winner,
        vis_flags(
            visible_idle=detection.visible_idle,
            visible_blocker=detection.visible_blocker,
            visible_working=detection.visible_working,
            skip=detection.skip_state_update,
        ),
    )
    assert got == (vector["state"], vector["rule"], vector["vis"])
    if vector["rule"] is None:
        assert result.fallback_reason == FALLBACK_REASON
    else:
        assert result.fallback_reason is None
