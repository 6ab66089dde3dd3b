"""Why the deciding rule matched: the region lines its own matchers hit (explain extension).

A rule name says what a rule is for; these lines show what on the screen it
recognised (the question line, the hint line, ...), so a user can tell a live
dialog from text that merely looks like one. The ``contains`` and ``line_regex``
matchers of the rule, of its ``all`` children and of the ``any`` children that
matched are reported (``not`` children only veto), under the engine's time budget.
"""

from __future__ import annotations

from herdr.detect.manifest.gates import (
    Gate,
    LinePattern,
    RegionText,
    SearchAborted,
    SearchBudget,
    gate_matches,
)
from herdr.detect.manifest.model import Evaluation
from herdr.detect.manifest.regions import rust_lines

MAX_LINES = 8
MAX_LINE_CHARS = 240


def _matchers(
    gate: Gate, region: RegionText, budget: SearchBudget
) -> tuple[list[str], list[LinePattern]]:
    needles, patterns = list(gate.contains), list(gate.line_regex)
    children = [*gate.all, *(c for c in gate.any if gate_matches(c, region, budget))]
    for child in children:
        more_needles, more_patterns = _matchers(child, region, budget)
        needles += more_needles
        patterns += more_patterns
    return needles, patterns


def matched_lines(evaluation: Evaluation | None) -> list[str]:
    """Lines of the winner's region hit by its positive matchers, in screen order."""
    if evaluation is None or evaluation.winner is None:
        return []
    winner = evaluation.winner
    region = next((r.region_text for r in evaluation.rule_results if r.rule is winner), "")
    budget = SearchBudget()
    needles, patterns = _matchers(winner.gate, RegionText(region), budget)
    hits: list[str] = []
    for line in rust_lines(region):
        lower = line.lower()
        hit = any(needle in lower for needle in needles)
        try:
            hit = hit or any(budget.search(p.exact, line) is not None for p in patterns)
        except SearchAborted:
            break
        if hit:
            hits.append(line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "...")
            if len(hits) == MAX_LINES:
                break
    return hits
