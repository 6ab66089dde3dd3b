"""Manifest validation and compilation (detection-spec §4.3), in the original's order.

Limits bound what an override or remote file can make every detection tick
cost. Checks run in the original order with its error texts, because the first
failure is what a user sees in ``herdr agent explain``'s warning.

Regex patterns are compiled here (validation needs to know they compile). A
pattern that is valid Rust but not expressible through the translation does not
fail validation: it is remembered, validation goes on (so a genuine validation
error elsewhere still wins, as it would in the original), and a
:class:`ManifestCompileError` is raised at the end.
"""

from __future__ import annotations

from herdr.detect.agents import rust_trim
from herdr.detect.manifest.approval_spec import compile_approval
from herdr.detect.manifest.dialect import (
    RegexSyntaxError,
    RegexUnsupportedError,
    compile_translated,
    translate_pattern,
)
from herdr.detect.manifest.errors import ManifestCompileError, ManifestError
from herdr.detect.manifest.gates import Gate, LinePattern, RegexMatcher
from herdr.detect.manifest.model import STATE_UNKNOWN, Rule
from herdr.detect.manifest.regions import TOP_NON_EMPTY_LINES, parse_region
from herdr.detect.manifest.rustfmt import debug_str
from herdr.detect.manifest.schema import RawGate, RawManifest, RawRule
from herdr.detect.manifest.version import TOP_NON_EMPTY_LINES_ENGINE_VERSION

MAX_RULES_PER_MANIFEST = 128
MAX_GATE_DEPTH = 8
MAX_TOTAL_GATES = 512
MAX_MATCHERS_PER_GATE = 32
MAX_TOTAL_MATCHERS = 1024
MAX_MATCHER_CHARS = 512
MAX_MANIFEST_PATTERN_SIZE = 200_000
"""Port-specific: total estimated regex size per manifest, so loading stays fast."""


class _GateError(Exception):
    """A gate-level failure; the caller prefixes ``rule X has invalid matcher gates:``."""


def _has_positive_matcher(gate: RawGate) -> bool:
    return bool(gate.contains or gate.regex or gate.line_regex or gate.all or gate.any)


def _has_any_matcher(gate: RawGate) -> bool:
    return _has_positive_matcher(gate) or bool(gate.not_)


class _Validator:
    """Walks the raw manifest once, counting limits and compiling patterns."""

    def __init__(self, raw: RawManifest) -> None:
        self.raw = raw
        self.total_gates = 0
        self.total_matchers = 0
        self.pattern_size = 0
        self.rule_id = ""
        self.deferred: str | None = None
        self.cache: dict[tuple[str, bool, bool], RegexMatcher] = {}

    # -- rules ---------------------------------------------------------------

    def run(self) -> tuple[Rule, ...]:
        rules = self.raw.rules
        if not rules:
            raise ManifestError("manifest must contain at least one rule")
        if len(rules) > MAX_RULES_PER_MANIFEST:
            raise ManifestError(
                f"manifest contains {len(rules)} rules, max is {MAX_RULES_PER_MANIFEST}"
            )
        compiled = tuple(self.rule(rule) for rule in rules)
        if self.deferred is not None:
            raise ManifestCompileError(self.deferred)
        return compiled

    def rule(self, rule: RawRule) -> Rule:
        if not rust_trim(rule.id):
            raise ManifestError("manifest rule id must not be empty")
        if rule.skip_state_update:
            if rule.state != STATE_UNKNOWN:
                raise ManifestError(
                    f'rule {rule.id} uses skip_state_update without state = "unknown"'
                )
            if rule.visible_idle or rule.visible_blocker or rule.visible_working:
                raise ManifestError(
                    f"rule {rule.id} uses skip_state_update with visible state evidence"
                )
        region = parse_region(rule.region)
        if region is None:
            raise ManifestError(f"rule {rule.id} uses invalid region: {rust_trim(rule.region)}")
        min_engine = self.raw.min_engine_version
        if (
            region.name == TOP_NON_EMPTY_LINES
            and min_engine is not None
            and min_engine < TOP_NON_EMPTY_LINES_ENGINE_VERSION
        ):
            raise ManifestError(
                f"rule {rule.id} uses top_non_empty_lines but min_engine_version is below "
                f"{TOP_NON_EMPTY_LINES_ENGINE_VERSION}"
            )
        self.rule_id = rule.id
        try:
            gate = self.gate(rule.gate, "rule", 0)
        except _GateError as err:
            raise ManifestError(f"rule {rule.id} has invalid matcher gates: {err}") from None
        raw_gate = rule.gate
        approval = None
        if rule.approval is not None:
            approval = compile_approval(rule.approval, rule.id, rule.state)
        return Rule(
            id=rule.id,
            state=rule.state,
            priority=rule.priority,
            region=rule.region,
            region_spec=region,
            visible_idle=rule.visible_idle,
            visible_blocker=rule.visible_blocker,
            visible_working=rule.visible_working,
            skip_state_update=rule.skip_state_update,
            contains=raw_gate.contains,
            regex=raw_gate.regex,
            line_regex=raw_gate.line_regex,
            all_count=len(raw_gate.all),
            any_count=len(raw_gate.any),
            not_count=len(raw_gate.not_),
            gate=gate,
            approval=approval,
        )

    # -- gates ---------------------------------------------------------------

    def count_gate(self, context: str, depth: int) -> None:
        if depth > MAX_GATE_DEPTH:
            raise _GateError(f"{context} exceeds max gate depth {MAX_GATE_DEPTH}")
        self.total_gates += 1
        if self.total_gates > MAX_TOTAL_GATES:
            raise _GateError(f"manifest exceeds max gate count {MAX_TOTAL_GATES}")

    def matcher_limits(self, gate: RawGate, context: str) -> None:
        count = len(gate.contains) + len(gate.regex) + len(gate.line_regex)
        if count > MAX_MATCHERS_PER_GATE:
            raise _GateError(
                f"{context} has {count} direct matchers, max is {MAX_MATCHERS_PER_GATE}"
            )
        self.total_matchers += count
        if self.total_matchers > MAX_TOTAL_MATCHERS:
            raise _GateError(f"manifest exceeds max matcher count {MAX_TOTAL_MATCHERS}")
        for value in (*gate.contains, *gate.regex, *gate.line_regex):
            if len(value) > MAX_MATCHER_CHARS:
                raise _GateError(f"{context} matcher exceeds max length {MAX_MATCHER_CHARS}")

    def gate(self, gate: RawGate, context: str, depth: int) -> Gate:
        """A positive gate: the rule itself, or a child of ``all``/``any``."""
        self.count_gate(context, depth)
        self.matcher_limits(gate, context)
        if not _has_positive_matcher(gate):
            raise _GateError(f"{context} must contain a positive matcher")
        patterns = self.patterns(gate.regex, context, "regex")
        line_patterns = self.line_patterns(gate.line_regex, context)
        all_ = tuple(self.gate(child, "all gate", depth + 1) for child in gate.all)
        any_ = tuple(self.gate(child, "any gate", depth + 1) for child in gate.any)
        not_: list[Gate] = []
        for child in gate.not_:
            if not _has_any_matcher(child):
                raise _GateError(f"{context} contains an empty not gate")
            not_.append(self.not_gate(child, depth + 1))
        return self.build(
            gate,
            patterns=patterns,
            line_patterns=line_patterns,
            all_=all_,
            any_=any_,
            not_=tuple(not_),
        )

    def not_gate(self, gate: RawGate, depth: int) -> Gate:
        """A ``not`` child: any matcher will do, its own ``not`` list included."""
        self.count_gate("not gate", depth)
        self.matcher_limits(gate, "not gate")
        if not _has_any_matcher(gate):
            raise _GateError("not gate must contain a matcher")
        patterns = self.patterns(gate.regex, "not gate", "regex")
        line_patterns = self.line_patterns(gate.line_regex, "not gate")
        all_ = tuple(self.gate(child, "not all gate", depth + 1) for child in gate.all)
        any_ = tuple(self.gate(child, "not any gate", depth + 1) for child in gate.any)
        not_ = tuple(self.not_gate(child, depth + 1) for child in gate.not_)
        return self.build(
            gate,
            patterns=patterns,
            line_patterns=line_patterns,
            all_=all_,
            any_=any_,
            not_=not_,
        )

    @staticmethod
    def build(
        gate: RawGate,
        *,
        patterns: tuple[RegexMatcher, ...],
        line_patterns: tuple[LinePattern, ...],
        all_: tuple[Gate, ...],
        any_: tuple[Gate, ...],
        not_: tuple[Gate, ...],
    ) -> Gate:
        # ``contains`` is case-insensitive: needles are lower-cased once, here.
        contains = tuple(needle.lower() for needle in gate.contains)
        return Gate(contains, patterns, line_patterns, all_, any_, not_)

    # -- patterns --------------------------------------------------------------

    def compile(
        self, pattern: str, context: str, field: str, *, line_mode: bool, newline_lead: bool
    ) -> RegexMatcher | None:
        """Compile one pattern; ``None`` when it is unsupported (deferred) or over budget."""
        key = (pattern, line_mode, newline_lead)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        try:
            translation = translate_pattern(pattern, line_mode=line_mode, newline_lead=newline_lead)
            if not line_mode:
                self.pattern_size += translation.size
            if self.pattern_size > MAX_MANIFEST_PATTERN_SIZE:
                self.defer(
                    f"rule {self.rule_id} could not be compiled: regex patterns exceed the "
                    f"manifest size limit of {MAX_MANIFEST_PATTERN_SIZE}"
                )
                return None
            compiled = compile_translated(translation.text)
        except RegexSyntaxError as err:
            raise _GateError(
                f"{context} contains invalid {field} pattern {debug_str(pattern)}: {err}"
            ) from None
        except RegexUnsupportedError as err:
            self.defer(
                f"rule {self.rule_id} could not be compiled: {field} pattern "
                f"{debug_str(pattern)} is not supported: {err}"
            )
            return None
        matcher = RegexMatcher(
            pattern,
            compiled,
            translation.newline_lead,
            translation.required,
            translation.untimed_max_len,
        )
        self.cache[key] = matcher
        return matcher

    def defer(self, message: str) -> None:
        if self.deferred is None:
            self.deferred = message

    def patterns(
        self, sources: tuple[str, ...], context: str, field: str
    ) -> tuple[RegexMatcher, ...]:
        out = []
        for source in sources:
            matcher = self.compile(source, context, field, line_mode=False, newline_lead=True)
            if matcher is not None:
                out.append(matcher)
        return tuple(out)

    def line_patterns(self, sources: tuple[str, ...], context: str) -> tuple[LinePattern, ...]:
        out = []
        for source in sources:
            exact = self.compile(source, context, "line_regex", line_mode=False, newline_lead=False)
            if exact is None:
                continue
            relaxed = self.compile(source, context, "line_regex", line_mode=True, newline_lead=True)
            if relaxed is not None:
                out.append(LinePattern(source, exact, relaxed))
        return tuple(out)


def validate_manifest(raw: RawManifest) -> tuple[Rule, ...]:
    """Validate ``raw`` and compile its rules; raises :class:`ManifestError`."""
    return _Validator(raw).run()
