"""The rule memo gives the engine's verdict while re-running only rules whose input moved."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from herdr.detect.agents import SCREEN_MANIFEST_AGENTS, Agent, parse_agent_label
from herdr.detect.manifest import DetectionInput, detect
from herdr.detect.manifest.memo import RuleMemo, detect_memo
from herdr.detect.manifest.regions import OSC_PROGRESS, OSC_TITLE
from herdr.detect.manifest.sources import load_bundled

VECTORS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "detection_vectors.json").read_text()
)
AGENTS = sorted(
    {v["agent"] for v in VECTORS if parse_agent_label(v["agent"]) in SCREEN_MANIFEST_AGENTS}
)
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def _agent(label: str) -> Agent:
    agent = parse_agent_label(label)
    assert agent is not None, label
    return agent


def _inputs(agent: str) -> list[DetectionInput]:
    return [
        DetectionInput(v["screen"], v["osc_title"], v["osc_progress"])
        for v in VECTORS
        if v["agent"] == agent
    ]


@pytest.mark.parametrize("agent", AGENTS)
def test_same_verdict_as_the_engine_over_every_transition(agent: str) -> None:
    """Every ordered pair of the agent's vectors (and each one twice in a row): the
    memo, carried along, answers exactly what a fresh evaluation does."""
    manifest = load_bundled(_agent(agent))
    inputs = _inputs(agent)
    memo = RuleMemo()
    for before, after in itertools.product(inputs, repeat=2):
        for inp in (before, after, after):
            assert detect_memo(True, manifest, inp, memo) == detect(True, manifest, inp)


@pytest.mark.parametrize(
    ("changed", "region"),
    [
        pytest.param("title", OSC_TITLE, id="spinner-title-only"),
        pytest.param("progress", OSC_PROGRESS, id="progress-only"),
    ],
)
def test_only_the_rules_of_the_moved_input_run(changed: str, region: str) -> None:
    manifest = load_bundled(Agent.CLAUDE)
    screen = "✻ Thinking… (3s · esc to interrupt)\n" + "─" * 40 + "\n❯ \n" + "─" * 40
    memo = RuleMemo()
    detect_memo(True, manifest, DetectionInput(screen, "⠋ Claude Code", ""), memo)
    assert memo.rules_run == len(manifest.rules)
    reading = sum(1 for rule in manifest.rules if rule.region_spec.name == region)
    for index, glyph in enumerate(SPINNER):
        before = memo.rules_run
        if changed == "title":
            inp = DetectionInput(screen, f"{glyph} Claude Code", "")
        else:
            inp = DetectionInput(screen, "⠋ Claude Code", f"4;{index + 1};50")
        assert detect_memo(True, manifest, inp, memo) == detect(True, manifest, inp)
        assert memo.rules_run - before in (0, reading)  # the first glyph is unchanged


def test_unchanged_input_runs_no_rule_and_a_new_manifest_runs_all() -> None:
    claude, codex = load_bundled(Agent.CLAUDE), load_bundled(Agent.CODEX)
    inp = DetectionInput("❯ \n? for shortcuts", "✳ Claude Code", "")
    memo = RuleMemo()
    first = detect_memo(True, claude, inp, memo)
    runs = memo.rules_run
    assert detect_memo(True, claude, inp, memo) == first
    assert memo.rules_run == runs
    assert detect_memo(True, codex, inp, memo) == detect(True, codex, inp)
    assert memo.rules_run == runs + len(codex.rules)
