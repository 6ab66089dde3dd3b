"""Permission dialogs as data: the question, the options and the keys choosing each.

PURE. Given a manifest and the detection text of a pane, :func:`extract` finds the
blocked rule that matched and reads its dialog with the rule's ``approval`` table
(:mod:`herdr.detect.manifest.approval_spec`). The fingerprint hashes the rule and the
question text (question and detail), so ``agent.approve`` can refuse to type into a
different dialog than the one a client was shown.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from msgspec import Struct

from herdr.detect.manifest import DetectionInput, Manifest, Rule, evaluate
from herdr.detect.manifest.approval_spec import (
    KEY_ARROWS,
    KEY_LEFT_RIGHT,
    KEY_NUMBER,
    KEY_NUMBER_ENTER,
    ApprovalSpec,
)
from herdr.detect.manifest.engine import cap_screen
from herdr.detect.manifest.model import STATE_BLOCKED
from herdr.detect.manifest.regions import ScreenView, rust_lines, select

MAX_OPTIONS = 16
MAX_LINE_CHARS = 1024
OPTION_GAP = 2
"""Non-option lines (wrapped labels, blanks) allowed between two options of one list."""
QUESTION_GAP = 3
"""Empty lines that end the question block: the transcript above is not the dialog."""
REGEX_TIMEOUT_S = 0.05
"""All option-pattern searches of one extraction share this budget."""
MAX_SCAN_LINES = 200
"""Options are looked for in the region's last lines only (dialogs sit at the bottom)."""

_BORDER_CHARS = " \t│┃║|"
_FRAME_CHARS = frozenset("─━═╭╮╰╯┌┐└┘├┤┬┴┼│┃║▀▄ \t-")
_BOX_BOTTOM = "╰└"
_BOX_TOP = "╭┌"
# Dashed rules separate parts of one dialog (claude frames the command with them).
_DASH_CHARS = frozenset("╌╍┄┅┈┉ \t")


class ApprovalOption(Struct, frozen=True):
    id: str
    label: str
    keys: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "keys": list(self.keys)}


class Approval(Struct, frozen=True):
    """One dialog read off the screen."""

    rule: str
    question: str
    detail: str
    options: tuple[ApprovalOption, ...]
    fingerprint: str

    def option(self, option_id: str) -> ApprovalOption | None:
        return next((o for o in self.options if o.id == option_id), None)

    def record(self, pane_id: str, agent: str | None) -> dict[str, Any]:
        """The wire record of ``agent.approval`` and ``agent_approval_requested``."""
        return {
            "pane_id": pane_id,
            "agent": agent,
            "rule": self.rule,
            "question": self.question,
            "detail": self.detail,
            "options": [o.as_dict() for o in self.options],
            "fingerprint": self.fingerprint,
        }


def fingerprint(rule: str, question: str, detail: str) -> str:
    """A stable hash of the rule and the question text: same dialog, same fingerprint."""
    digest = hashlib.sha256(f"{rule}\x00{question}\x00{detail}".encode())
    return digest.hexdigest()[:16]


def _clean(line: str) -> str:
    return line[:MAX_LINE_CHARS].strip(_BORDER_CHARS)


def _is_frame(line: str) -> bool:
    return all(ch in _FRAME_CHARS for ch in line)


def _is_dashed(line: str) -> bool:
    return all(ch in _DASH_CHARS for ch in line)


@dataclass(slots=True)
class _Match:
    index: int
    groups: dict[str, str | None]


def _option_matches(lines: list[str], spec: ApprovalSpec) -> list[_Match]:
    """The last list of options in ``lines`` (bottom up, small gaps allowed).

    A line may hold several options (a row of buttons): every match counts, in order.
    """
    found: list[_Match] = []
    gap = 0
    deadline = time.monotonic() + REGEX_TIMEOUT_S
    for index in range(len(lines) - 1, max(-1, len(lines) - 1 - MAX_SCAN_LINES), -1):
        line = lines[index][:MAX_LINE_CHARS]
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        matches = [
            m
            for m in spec.option_pattern.finditer(line, timeout=left)
            if (m.group("label") or "").strip()
        ]
        if matches:
            found.extend(_Match(index, m.groupdict()) for m in reversed(matches))
            gap = 0
            if len(found) >= MAX_OPTIONS:
                break
        elif found:
            gap += 1
            if gap > OPTION_GAP:
                break
    found.reverse()
    return found[-MAX_OPTIONS:]


def _question(lines: list[str], first_option: int, count: int) -> tuple[str, str]:
    """(question, detail) from the non-empty lines directly above the first option."""
    above: list[str] = []
    blanks = 0
    depth = 0  # boxes nested inside the dialog (gemini frames the command in one)
    for index in range(first_option - 1, -1, -1):
        text = _clean(lines[index])
        if not text:
            blanks += 1
            if above and blanks >= QUESTION_GAP:
                break
            continue
        blanks = 0
        if _is_dashed(text):
            continue
        if _is_frame(text):
            if text[0] in _BOX_BOTTOM:
                depth += 1
                continue
            if text[0] in _BOX_TOP and depth > 0:
                depth -= 1
                continue
            break
        above.append(text)
        if len(above) >= count:
            break
    above.reverse()
    if not above:
        return "", ""
    # The last line asking something; failing that, the block's first line (its title).
    asks = [k for k, text in enumerate(above) if "?" in text]
    at = asks[-1] if asks else 0
    detail = "\n".join(text for k, text in enumerate(above) if k != at)
    return above[at], detail


def _keys(spec: ApprovalSpec, match: _Match, position: int, selected: int) -> tuple[str, ...]:
    if spec.keys == KEY_NUMBER:
        return (str(match.groups["number"]),)
    if spec.keys == KEY_NUMBER_ENTER:
        return (str(match.groups["number"]), "Enter")
    if spec.keys in (KEY_ARROWS, KEY_LEFT_RIGHT):
        back, forward = ("Up", "Down") if spec.keys == KEY_ARROWS else ("Left", "Right")
        if position >= selected:
            return (*(forward,) * (position - selected), "Enter")
        return (*(back,) * (selected - position), "Enter")
    return (str(match.groups["key"]),)


def _options(spec: ApprovalSpec, matches: list[_Match]) -> tuple[ApprovalOption, ...]:
    selected = next((k for k, m in enumerate(matches) if m.groups.get("selected")), 0)
    out: list[ApprovalOption] = []
    seen: set[str] = set()
    for position, match in enumerate(matches):
        number = match.groups.get("number")
        option_id = number if number else str(position + 1)
        keys = _keys(spec, match, position, selected)
        if option_id in seen or not all(keys):
            continue
        seen.add(option_id)
        label = " ".join(str(match.groups["label"]).split())
        out.append(ApprovalOption(option_id, label, keys))
    return tuple(out)


def read_dialog(rule: Rule, screen: str) -> Approval | None:
    """Read ``rule``'s dialog from ``screen``; ``None`` when no options can be found."""
    spec = rule.approval
    if spec is None:
        return None
    region = spec.region if spec.region is not None else rule.region_spec
    text = select(region, ScreenView(cap_screen(screen)), "", "")
    lines = rust_lines(text)
    try:
        matches = _option_matches(lines, spec)
    except TimeoutError:
        return None
    if not matches:
        return None
    options = _options(spec, matches)
    if not options:
        return None
    question, detail = _question(lines, matches[0].index, spec.question_lines)
    return Approval(rule.id, question, detail, options, fingerprint(rule.id, question, detail))


def _candidates(manifest: Manifest, inp: DetectionInput) -> list[Rule]:
    evaluation = evaluate(manifest, inp)
    if evaluation.winner is None or evaluation.detection.state != STATE_BLOCKED:
        return []
    matched = [
        r.rule
        for r in evaluation.rule_results
        if r.matched and r.rule.approval is not None and r.rule.effective_state == STATE_BLOCKED
    ]
    # The winner's own table first, then the other matching blocked rules by priority.
    matched.sort(key=lambda rule: (rule is not evaluation.winner, -rule.priority))
    return matched


def extract(manifest: Manifest | None, inp: DetectionInput) -> Approval | None:
    """The dialog an agent is blocked on, or ``None`` (not blocked, or not recognised)."""
    if manifest is None:
        return None
    for rule in _candidates(manifest, inp):
        approval = read_dialog(rule, inp.screen)
        if approval is not None:
            return approval
    return None


__all__ = ["Approval", "ApprovalOption", "extract", "fingerprint", "read_dialog"]
