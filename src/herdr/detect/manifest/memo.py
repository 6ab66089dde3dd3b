"""Detection that re-runs only the rules whose input changed since the pane's last run.

A working agent redraws ~10 times a second, but between two frames usually only its
title's spinner glyph moves: the screen text is the same. Every rule reads exactly one
region (the screen, the OSC title or the OSC progress), and a rule's match is a pure
function of its region's text, so a rule whose input is unchanged keeps its last match
and only the others are evaluated. The winner is then picked over all matches exactly
as :func:`herdr.detect.manifest.engine.detect` does, so the verdict is the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from herdr.detect.manifest.engine import MAX_OSC_CHARS, _detection, _screen_view
from herdr.detect.manifest.gates import RegionText, SearchBudget, gate_matches
from herdr.detect.manifest.model import (
    IDLE_FALLBACK_DETECTION,
    UNKNOWN_DETECTION,
    AgentDetection,
    DetectionInput,
    Manifest,
    Rule,
)
from herdr.detect.manifest.regions import OSC_PROGRESS, OSC_TITLE, ScreenView, select_span


@dataclass(slots=True)
class RuleMemo:
    """One pane's last evaluation of one manifest: its inputs and every rule's match."""

    manifest: Manifest | None = None
    screen: str | None = None
    title: str | None = None
    progress: str | None = None
    matched: list[bool] = field(default_factory=list)
    detection: AgentDetection | None = None
    rules_run: int = 0  # rules evaluated over the memo's life (what the memo saves)

    def forget(self) -> None:
        self.manifest = None
        self.detection = None


def detect_memo(
    agent_known: bool, manifest: Manifest | None, inp: DetectionInput, memo: RuleMemo
) -> AgentDetection:
    """:func:`~herdr.detect.manifest.engine.detect`, re-running only changed rules."""
    if not agent_known:
        return UNKNOWN_DETECTION
    if manifest is None:
        return IDLE_FALLBACK_DETECTION
    known = memo.manifest is manifest and memo.detection is not None
    screen_fresh = not known or memo.screen != inp.screen
    title_fresh = not known or memo.title != inp.osc_title
    progress_fresh = not known or memo.progress != inp.osc_progress
    if not (screen_fresh or title_fresh or progress_fresh) and memo.detection is not None:
        return memo.detection
    rules = manifest.rules
    if not known or len(memo.matched) != len(rules):
        memo.matched = [False] * len(rules)
    view: ScreenView | None = None
    regions: dict[str, RegionText] = {}
    budget = SearchBudget()
    winner: Rule | None = None
    for index, rule in enumerate(rules):
        spec = rule.region_spec
        if spec.name == OSC_TITLE:
            fresh = title_fresh
        elif spec.name == OSC_PROGRESS:
            fresh = progress_fresh
        else:
            fresh = screen_fresh
        if fresh:
            region = regions.get(spec.spec)
            if region is None:
                if spec.name == OSC_TITLE:
                    region = RegionText(inp.osc_title[:MAX_OSC_CHARS])
                elif spec.name == OSC_PROGRESS:
                    region = RegionText(inp.osc_progress[:MAX_OSC_CHARS])
                else:
                    view = view or _screen_view(inp.screen)
                    region = RegionText.from_selection(select_span(spec, view), view)
                regions[spec.spec] = region
            memo.matched[index] = gate_matches(rule.gate, region, budget)
            memo.rules_run += 1
        if memo.matched[index] and (winner is None or rule.priority > winner.priority):
            winner = rule
    detection = IDLE_FALLBACK_DETECTION if winner is None else _detection(winner)
    if budget.left():
        memo.manifest, memo.detection = manifest, detection
        memo.screen, memo.title, memo.progress = inp.screen, inp.osc_title, inp.osc_progress
    else:  # a search ran out of time: its "no match" must not be kept
        memo.forget()
    return detection
