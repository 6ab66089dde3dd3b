"""Rule selection: evaluate every rule, pick the winner, mask visible flags (§4.6).

The engine is pure and bounded. Inputs are capped (:data:`MAX_SCREEN_CHARS`,
:data:`MAX_SCREEN_LINES`, :data:`MAX_OSC_CHARS`) and all regex work of one
evaluation shares a time budget (see :mod:`gates`), so neither a hostile screen
(megabytes of output, control characters) nor a catastrophic override pattern
can stall the detection loop. Each distinct region is sliced, lower-cased and
split into lines at most once per evaluation.
"""

from __future__ import annotations

from herdr.detect.manifest.gates import RegionText, SearchBudget, gate_matches
from herdr.detect.manifest.model import (
    DEFAULT_KNOWN_AGENT_IDLE_FALLBACK,
    IDLE_FALLBACK_DETECTION,
    STATE_BLOCKED,
    STATE_IDLE,
    STATE_WORKING,
    UNKNOWN_DETECTION,
    AgentDetection,
    DetectionInput,
    Evaluation,
    Manifest,
    Rule,
    RuleResult,
)
from herdr.detect.manifest.regions import OSC_PROGRESS, OSC_TITLE, ScreenView, select_span

MAX_SCREEN_CHARS = 262_144
"""Only the last 256 Ki characters of the screen are considered."""

MAX_SCREEN_LINES = 2048
"""…and only its last 2048 lines.

Detection text is the bottom ``rows`` rows of one pane (~10 KiB and 50 lines for
200x50), so neither cap ever cuts real input; they bound the per-line work a
hostile or broken producer (megabytes of output, hundreds of thousands of empty
lines) could cause. Cuts keep whole lines: after the character cut, the text
starts at the next line start (a single oversized line is kept as its tail).
Regions counted from the top (``top_non_empty_lines``, ``\\A`` patterns) see the
capped text.
"""

MAX_OSC_CHARS = 4096
"""OSC bodies over 4096 bytes are discarded by the parser; cap direct callers too."""

_FALLBACK = Evaluation(IDLE_FALLBACK_DETECTION, None, DEFAULT_KNOWN_AGENT_IDLE_FALLBACK, ())


def _cap_chars(screen: str) -> str:
    if len(screen) <= MAX_SCREEN_CHARS:
        return screen
    screen = screen[-MAX_SCREEN_CHARS:]
    cut = screen.find("\n")
    return screen[cut + 1 :] if 0 <= cut < len(screen) - 1 else screen


def _cap_lines(screen: str) -> str:
    # Start after the newline that ends the line just above the last N lines.
    index = len(screen)
    for _ in range(MAX_SCREEN_LINES + (1 if screen.endswith("\n") else 0)):
        index = screen.rfind("\n", 0, index)
    return screen[index + 1 :]


def cap_screen(screen: str) -> str:
    """The part of ``screen`` the engine considers (see :data:`MAX_SCREEN_LINES`)."""
    screen = _cap_chars(screen)
    return _cap_lines(screen) if screen.count("\n") > MAX_SCREEN_LINES else screen


def _screen_view(screen: str) -> ScreenView:
    """A view of the capped screen; the line cap reuses the view's own line split."""
    view = ScreenView(_cap_chars(screen))
    if len(view.lines) > MAX_SCREEN_LINES:
        view = ScreenView(_cap_lines(view.text))
    return view


def _detection(rule: Rule) -> AgentDetection:
    state = rule.effective_state
    return AgentDetection(
        state=state,
        skip_state_update=rule.skip_state_update,
        visible_idle=rule.visible_idle and state == STATE_IDLE,
        visible_blocker=rule.visible_blocker and state == STATE_BLOCKED,
        visible_working=rule.visible_working and state == STATE_WORKING,
    )


def _run(manifest: Manifest, inp: DetectionInput, results: list[RuleResult] | None) -> Rule | None:
    view = _screen_view(inp.screen)
    title = inp.osc_title[:MAX_OSC_CHARS]
    progress = inp.osc_progress[:MAX_OSC_CHARS]
    regions: dict[str, RegionText] = {}
    budget = SearchBudget()
    winner: Rule | None = None
    for rule in manifest.rules:
        spec = rule.region_spec
        region = regions.get(spec.spec)
        if region is None:
            if spec.name == OSC_TITLE:
                region = RegionText(title)
            elif spec.name == OSC_PROGRESS:
                region = RegionText(progress)
            else:
                region = RegionText.from_selection(select_span(spec, view), view)
            regions[spec.spec] = region
        matched = gate_matches(rule.gate, region, budget)
        if results is not None:
            results.append(RuleResult(rule, matched, region.text))
        # First in file order wins ties: replace only on a strictly higher priority.
        if matched and (winner is None or rule.priority > winner.priority):
            winner = rule
    return winner


def evaluate(manifest: Manifest | None, inp: DetectionInput) -> Evaluation:
    """Evaluate every rule; ``None`` means a known agent without a manifest (idle fallback)."""
    if manifest is None:
        return _FALLBACK
    results: list[RuleResult] = []
    winner = _run(manifest, inp, results)
    if winner is None:
        return Evaluation(
            IDLE_FALLBACK_DETECTION, None, DEFAULT_KNOWN_AGENT_IDLE_FALLBACK, tuple(results)
        )
    return Evaluation(_detection(winner), winner, None, tuple(results))


def detect(agent_known: bool, manifest: Manifest | None, inp: DetectionInput) -> AgentDetection:
    """Detection entry point (§3.3): no agent → unknown; no manifest → idle fallback."""
    if not agent_known:
        return UNKNOWN_DETECTION
    if manifest is None:
        return IDLE_FALLBACK_DETECTION
    winner = _run(manifest, inp, None)
    return IDLE_FALLBACK_DETECTION if winner is None else _detection(winner)
