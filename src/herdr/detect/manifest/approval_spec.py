"""A blocked rule's ``approval`` table, validated and compiled (our manifest extension).

herdr's manifests never carry ``approval``, so they stay valid as a subset. The table
says where a permission dialog's question sits, which lines are its options and which
keys select one; :mod:`herdr.detect.approval` reads a screen with it.
"""

from __future__ import annotations

import regex
from msgspec import Struct

from herdr.detect.manifest.errors import ManifestError
from herdr.detect.manifest.regions import Region, parse_region
from herdr.detect.manifest.schema import RawApproval

KEY_NUMBER = "number"  # type the option's number
KEY_NUMBER_ENTER = "number_enter"  # its number, then Enter
KEY_SHORTCUT = "key"  # the key the option names, e.g. "(y)"
KEY_ARROWS = "arrows"  # Up/Down from the selected option, then Enter
KEY_LEFT_RIGHT = "left_right"  # Left/Right along a row of buttons, then Enter
KEY_MODES = (KEY_NUMBER, KEY_NUMBER_ENTER, KEY_SHORTCUT, KEY_ARROWS, KEY_LEFT_RIGHT)

ABOVE_OPTIONS = "above_options"
DEFAULT_QUESTION_LINES = 6
MAX_QUESTION_LINES = 32
MAX_OPTION_PATTERN_CHARS = 512

# Which named group each key mode needs (``label`` is always required).
_NEEDS = {KEY_NUMBER: "number", KEY_NUMBER_ENTER: "number", KEY_SHORTCUT: "key"}


class ApprovalSpec(Struct, frozen=True, eq=False):
    """How to read one rule's dialog: region, question lines, option pattern, key mode."""

    region: Region | None
    question_lines: int
    option_source: str
    option_pattern: regex.Pattern[str]
    keys: str


def _question_lines(spec: str, rule_id: str) -> int:
    text = spec.strip()
    if text == ABOVE_OPTIONS:
        return DEFAULT_QUESTION_LINES
    if text.startswith(ABOVE_OPTIONS + "(") and text.endswith(")"):
        arg = text[len(ABOVE_OPTIONS) + 1 : -1]
        if arg.isascii() and arg.isdigit() and 1 <= int(arg) <= MAX_QUESTION_LINES:
            return int(arg)
    raise ManifestError(
        f"rule {rule_id} approval.question_region must be {ABOVE_OPTIONS} or "
        f"{ABOVE_OPTIONS}(N) with 1 <= N <= {MAX_QUESTION_LINES}, got {text!r}"
    )


def compile_approval(raw: RawApproval, rule_id: str, state: str | None) -> ApprovalSpec:
    """Validate ``raw`` for rule ``rule_id``; raises :class:`ManifestError`."""
    if state != "blocked":
        raise ManifestError(f"rule {rule_id} has an approval table but is not blocked")
    region = None
    if raw.region is not None:
        region = parse_region(raw.region)
        if region is None or region.name in ("osc_title", "osc_progress"):
            raise ManifestError(f"rule {rule_id} approval uses invalid region: {raw.region}")
    if raw.keys not in KEY_MODES:
        raise ManifestError(
            f"rule {rule_id} approval.keys must be one of {', '.join(KEY_MODES)}, got {raw.keys!r}"
        )
    if len(raw.option_pattern) > MAX_OPTION_PATTERN_CHARS:
        raise ManifestError(
            f"rule {rule_id} approval.option_pattern exceeds max length {MAX_OPTION_PATTERN_CHARS}"
        )
    try:
        pattern = regex.compile(raw.option_pattern, flags=regex.V0)
    except (regex.error, OverflowError, ValueError) as err:
        raise ManifestError(f"rule {rule_id} approval.option_pattern is invalid: {err}") from None
    groups = pattern.groupindex
    needed = ["label"]
    if raw.keys in _NEEDS:
        needed.append(_NEEDS[raw.keys])
    for name in needed:
        if name not in groups:
            raise ManifestError(
                f"rule {rule_id} approval.option_pattern needs a named group `{name}`"
            )
    return ApprovalSpec(
        region=region,
        question_lines=_question_lines(raw.question_region, rule_id),
        option_source=raw.option_pattern,
        option_pattern=pattern,
        keys=raw.keys,
    )
