"""Hook-reported metadata: validation, tokens and presentation entries (PURE).

Metadata is display only: a title, a display name, per-state labels and free-form
tokens that hooks attach to a pane or workspace (detection-spec §9.9, herdr-spec §3.4).
It never changes an agent's state, waits, notifications or rollups, so it lives apart
from arbitration; `agent_state` decides which entries are visible.

Every rule answers with its own error code so scripts can tell what they got wrong;
a request is validated completely before anything is changed. Time is integer
milliseconds of a monotonic clock (see `agent_state`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import msgspec
from msgspec import Struct

from herdr.detect.agents import (
    AGENT_INFO,
    ALL_AGENTS,
    Agent,
    is_official,
    parse_agent_label,
    rust_trim,
)
from herdr.vocab import STATUS_WORDS, ErrorCode, HerdrError

# Error codes of the report rules (detection-spec §10): the ``invalid_metadata_*``
# family and the rule-specific codes beside herdr.vocab.ErrorCode's fixed set.
INVALID_AGENT = "invalid_agent"
INVALID_METADATA_SOURCE = "invalid_metadata_source"
INVALID_METADATA_TOKEN = "invalid_metadata_token"
INVALID_METADATA_TTL = "invalid_metadata_ttl"
INVALID_METADATA_REQUEST = "invalid_metadata_request"
METADATA_TOKEN_LIMIT = "metadata_token_limit"
METADATA_SEQUENCE_SOURCE_LIMIT = "metadata_sequence_source_limit"

# Bounds (herdr-spec §3.4).
SOURCE_MAX_CHARS = 80
TEXT_MAX_CHARS = 80
TOKEN_KEY_MAX_LEN = 32
TOKEN_VALUE_MAX_CHARS = 80
MAX_TOKEN_KEYS_PER_REQUEST = 16
MAX_TOKEN_KEYS_PER_RESOURCE = 32
MAX_SEQUENCE_SOURCES = 32
TTL_MIN_MS = 1
TTL_MAX_MS = 86_400_000
STATE_LABEL_KEYS = frozenset(STATUS_WORDS)

_SOURCE_EXTRA = frozenset(":._-")
_TOKEN_EXTRA = frozenset("_-")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class ReportError(HerdrError):
    """A rejected hook report; `code` is the API error code to answer with."""


class MetadataError(ReportError):
    """A rejected metadata request."""


# --------------------------------------------------------------------------- text rules


def _is_ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def is_control(ch: str) -> bool:
    """Unicode general category Cc, as Rust's `char::is_control`."""
    code = ord(ch)
    return code < 0x20 or 0x7F <= code <= 0x9F


def sanitize_text(value: str, limit: int = TEXT_MAX_CHARS) -> str | None:
    """Trim, drop control characters, keep `limit` chars, trim again; empty → None."""
    kept = "".join(ch for ch in rust_trim(value) if not is_control(ch))[:limit]
    kept = rust_trim(kept)
    return kept or None


def normalize_reported_agent_label(agent: str) -> str:
    """Canonical label when it parses, else the trimmed raw string; blank → error."""
    trimmed = rust_trim(agent)
    if not trimmed:
        raise ReportError(INVALID_AGENT, "agent label must not be empty")
    known = parse_agent_label(trimmed)
    return known.label if known is not None else trimmed


def normalize_source(value: str) -> str:
    """A metadata source: trimmed, 1–80 chars of ``[A-Za-z0-9:._-]``."""
    trimmed = rust_trim(value)
    if not trimmed:
        raise MetadataError(INVALID_METADATA_SOURCE, "metadata source must not be empty")
    if len(trimmed) > SOURCE_MAX_CHARS:
        raise MetadataError(
            INVALID_METADATA_SOURCE,
            f"metadata source must be {SOURCE_MAX_CHARS} characters or fewer",
        )
    if not all(_is_ascii_alnum(ch) or ch in _SOURCE_EXTRA for ch in trimmed):
        raise MetadataError(
            INVALID_METADATA_SOURCE,
            "metadata source may contain only ASCII letters, digits, colon, dot, "
            "underscore, and hyphen",
        )
    return trimmed


def normalize_ttl(ttl_ms: int | None) -> int | None:
    """`ttl_ms` must be 1…86 400 000 when given."""
    if ttl_ms is None:
        return None
    if ttl_ms < TTL_MIN_MS:
        raise MetadataError(INVALID_METADATA_TTL, f"metadata ttl_ms must be at least {TTL_MIN_MS}")
    if ttl_ms > TTL_MAX_MS:
        raise MetadataError(INVALID_METADATA_TTL, f"metadata ttl_ms must be {TTL_MAX_MS} or less")
    return ttl_ms


def _valid_token_key(key: str) -> bool:
    return 0 < len(key) <= TOKEN_KEY_MAX_LEN and all(
        _is_ascii_alnum(ch) or ch in _TOKEN_EXTRA for ch in key
    )


def normalize_tokens(tokens: Mapping[str, str | None]) -> dict[str, str | None]:
    """1–16 keys of ``[A-Za-z0-9_-]{1,32}``; values sanitised, empty/None → clear."""
    if not tokens:
        raise MetadataError(INVALID_METADATA_TOKEN, "missing token to set or clear")
    if len(tokens) > MAX_TOKEN_KEYS_PER_REQUEST:
        raise MetadataError(
            INVALID_METADATA_TOKEN,
            f"a metadata report may update at most {MAX_TOKEN_KEYS_PER_REQUEST} tokens",
        )
    out: dict[str, str | None] = {}
    for key, value in tokens.items():
        if not _valid_token_key(key):
            raise MetadataError(INVALID_METADATA_TOKEN, f"invalid metadata token key: {key}")
        out[key] = None if value is None else sanitize_text(value, TOKEN_VALUE_MAX_CHARS)
    return out


def normalize_state_labels(labels: Mapping[str, str]) -> dict[str, str]:
    """Keys (trimmed, lower-cased) must be a status; empty values are dropped."""
    out: dict[str, str] = {}
    for raw_key, raw_value in labels.items():
        key = rust_trim(raw_key).translate(_ASCII_LOWER)
        if key not in STATE_LABEL_KEYS:
            raise MetadataError(ErrorCode.INVALID_STATE_LABEL, f"unknown state label: {key}")
        value = sanitize_text(raw_value)
        if value is not None:
            out[key] = value
    return out


# --------------------------------------------------------------------------- reports


class PaneMetadataReport(Struct, frozen=True):
    """A validated `pane.report_metadata` request."""

    source: str
    agent_label: str | None = None
    applies_to_source: str | None = None
    title: str | None = None
    display_agent: str | None = None
    state_labels: Mapping[str, str] = msgspec.field(default_factory=dict)
    tokens: Mapping[str, str | None] | None = None
    clear_title: bool = False
    clear_display_agent: bool = False
    clear_state_labels: bool = False
    seq: int | None = None
    ttl_ms: int | None = None

    @property
    def presentation_requested(self) -> bool:
        """Whether the title/display/labels part must be applied."""
        return bool(
            self.title is not None
            or self.display_agent is not None
            or self.state_labels
            or self.clear_title
            or self.clear_display_agent
            or self.clear_state_labels
        )


class WorkspaceMetadataReport(Struct, frozen=True):
    """A validated `workspace.report_metadata` request (tokens only)."""

    source: str
    tokens: Mapping[str, str | None]
    seq: int | None = None
    ttl_ms: int | None = None


def parse_pane_metadata_report(
    *,
    source: str,
    agent: str | None = None,
    applies_to_source: str | None = None,
    title: str | None = None,
    display_agent: str | None = None,
    state_labels: Mapping[str, str] | None = None,
    tokens: Mapping[str, str | None] | None = None,
    clear_title: bool = False,
    clear_display_agent: bool = False,
    clear_state_labels: bool = False,
    seq: int | None = None,
    ttl_ms: int | None = None,
) -> PaneMetadataReport:
    """Validate every rule of a pane report in the original's order; raise MetadataError."""
    agent_label = None if agent is None else normalize_reported_agent_label(agent)
    norm_source = normalize_source(source)
    norm_tokens = normalize_tokens(tokens) if tokens else None
    ttl = normalize_ttl(ttl_ms)
    norm_title = None if title is None else sanitize_text(title)
    norm_display = None if display_agent is None else sanitize_text(display_agent)
    applies_to = None if applies_to_source is None else normalize_source(applies_to_source)
    labels = normalize_state_labels(state_labels or {})
    if (
        (title is not None and clear_title)
        or (display_agent is not None and clear_display_agent)
        or (bool(state_labels) and clear_state_labels)
    ):
        raise MetadataError(
            INVALID_METADATA_REQUEST, "cannot set and clear the same metadata field"
        )
    if (
        norm_title is None
        and norm_display is None
        and not labels
        and norm_tokens is None
        and not (clear_title or clear_display_agent or clear_state_labels)
    ):
        raise MetadataError(INVALID_METADATA_REQUEST, "missing metadata field to set or clear")
    return PaneMetadataReport(
        source=norm_source,
        agent_label=agent_label,
        applies_to_source=applies_to,
        title=norm_title,
        display_agent=norm_display,
        state_labels=labels,
        tokens=norm_tokens,
        clear_title=clear_title,
        clear_display_agent=clear_display_agent,
        clear_state_labels=clear_state_labels,
        seq=seq,
        ttl_ms=ttl,
    )


def parse_workspace_metadata_report(
    *,
    source: str,
    tokens: Mapping[str, str | None],
    seq: int | None = None,
    ttl_ms: int | None = None,
) -> WorkspaceMetadataReport:
    """Validate a workspace report (source → ttl → tokens); raise MetadataError."""
    norm_source = normalize_source(source)
    ttl = normalize_ttl(ttl_ms)
    return WorkspaceMetadataReport(norm_source, normalize_tokens(tokens), seq, ttl)


# --------------------------------------------------------------------------- sequences


def sequence_is_fresh(seqs: Mapping[str, int], source: str, seq: int | None) -> bool:
    """Unsequenced reports are always fresh; sequenced ones must beat the source's last."""
    if seq is None:
        return True
    last = seqs.get(source)
    return last is None or seq > last


def accept_sequence(seqs: dict[str, int], source: str, seq: int | None) -> bool:
    """Record `seq` for `source`; False when stale; at most 32 sources ever tracked."""
    if seq is None:
        return True
    if not sequence_is_fresh(seqs, source, seq):
        return False
    if source not in seqs and len(seqs) >= MAX_SEQUENCE_SOURCES:
        raise MetadataError(
            METADATA_SEQUENCE_SOURCE_LIMIT,
            f"metadata may track at most {MAX_SEQUENCE_SOURCES} sequenced sources",
        )
    seqs[source] = seq
    return True


# --------------------------------------------------------------------------- tokens


@dataclass(slots=True)
class MetadataTokens:
    """Token values with optional expiry deadlines (ms)."""

    entries: dict[str, tuple[str, int | None]] = field(default_factory=dict)

    def values(self) -> dict[str, str]:
        return {key: value for key, (value, _) in self.entries.items()}

    def key_count_after_patch(self, patch: Mapping[str, str | None]) -> int:
        keys = set(self.entries)
        for key, value in patch.items():
            if value is None:
                keys.discard(key)
            else:
                keys.add(key)
        return len(keys)

    def patch(self, patch: Mapping[str, str | None], ttl_ms: int | None, now: int) -> bool:
        """Set or remove keys; a patch without TTL cancels the keys' old expiry."""
        expires_at = None if ttl_ms is None else now + ttl_ms
        changed = False
        for key, value in patch.items():
            if value is None:
                changed |= self.entries.pop(key, None) is not None
            elif self.entries.get(key) != (value, expires_at):
                self.entries[key] = (value, expires_at)
                changed = True
        return changed

    def clear(self) -> bool:
        had = bool(self.entries)
        self.entries.clear()
        return had

    def next_expiry(self) -> int | None:
        deadlines = [at for _, at in self.entries.values() if at is not None]
        return min(deadlines, default=None)

    def expire(self, now: int) -> bool:
        """Remove keys whose deadline ≤ now."""
        expired = [k for k, (_, at) in self.entries.items() if at is not None and at <= now]
        for key in expired:
            del self.entries[key]
        return bool(expired)


def check_token_limit(tokens: MetadataTokens, patch: Mapping[str, str | None], what: str) -> None:
    """More than 32 keys after the patch is an error (checked before any change)."""
    if tokens.key_count_after_patch(patch) > MAX_TOKEN_KEYS_PER_RESOURCE:
        raise MetadataError(
            METADATA_TOKEN_LIMIT,
            f"{what} metadata may contain at most {MAX_TOKEN_KEYS_PER_RESOURCE} tokens",
        )


@dataclass(slots=True)
class WorkspaceMetadata:
    """A workspace's tokens and per-source sequences (32-source cap)."""

    tokens: MetadataTokens = field(default_factory=MetadataTokens)
    seqs: dict[str, int] = field(default_factory=dict)


def apply_workspace_metadata(
    meta: WorkspaceMetadata, report: WorkspaceMetadataReport, now: int
) -> bool:
    """Apply a workspace report; True when the tokens changed (emit workspace update)."""
    if not sequence_is_fresh(meta.seqs, report.source, report.seq):
        return False
    check_token_limit(meta.tokens, report.tokens, "workspace")
    if not accept_sequence(meta.seqs, report.source, report.seq):
        return False
    return meta.tokens.patch(report.tokens, report.ttl_ms, now)


# --------------------------------------------------------------------------- presentation


class Presentation(Struct, frozen=True):
    """The effective title, display name and state labels of a pane."""

    title: str | None = None
    display_agent: str | None = None
    state_labels: tuple[tuple[str, str], ...] = ()

    def labels(self) -> dict[str, str]:
        return dict(self.state_labels)


EMPTY_PRESENTATION = Presentation()

# (reported_at, order) — order breaks ties between reports in the same millisecond.
Stamp = tuple[int, int]


@dataclass(slots=True)
class PresentationEntry:
    """One source's presentation fields with per-field timestamps."""

    source: str
    agent_label: str | None
    applies_to_source: str | None
    reported_at: int
    ttl_ms: int | None = None
    title: tuple[str, Stamp] | None = None
    display_agent: tuple[str, Stamp] | None = None
    state_labels: dict[str, tuple[str, Stamp]] = field(default_factory=dict)

    def has_fields(self) -> bool:
        return self.title is not None or self.display_agent is not None or bool(self.state_labels)

    def deadline(self) -> int | None:
        return None if self.ttl_ms is None else self.reported_at + self.ttl_ms

    def expired(self, now: int) -> bool:
        deadline = self.deadline()
        return deadline is not None and now >= deadline


def apply_presentation(
    entries: dict[str, PresentationEntry], report: PaneMetadataReport, now: int, order: int
) -> None:
    """Patch (clear + set) or replace the source's entry; clear-only keeps the old TTL."""
    old = entries.get(report.source)
    if old is not None and old.expired(now):
        del entries[report.source]
        old = None
    stamp = (now, order)
    clearing = report.clear_title or report.clear_display_agent or report.clear_state_labels
    if not clearing or old is None:
        entry = PresentationEntry(
            report.source, report.agent_label, report.applies_to_source, now, report.ttl_ms
        )
        entries[report.source] = entry
    else:
        entry = old
        _apply_clears(entry, report)
        if report.agent_label is not None:
            entry.agent_label = report.agent_label
        if report.applies_to_source is not None:
            entry.applies_to_source = report.applies_to_source
    _apply_sets(entry, report, stamp)
    has_sets = report.title is not None or report.display_agent is not None or report.state_labels
    if clearing and old is not None and (has_sets or report.ttl_ms is not None):
        entry.reported_at = now
        entry.ttl_ms = report.ttl_ms


def _apply_clears(entry: PresentationEntry, report: PaneMetadataReport) -> None:
    if report.clear_title:
        entry.title = None
    if report.clear_display_agent:
        entry.display_agent = None
    if report.clear_state_labels:
        entry.state_labels.clear()


def _apply_sets(entry: PresentationEntry, report: PaneMetadataReport, stamp: Stamp) -> None:
    if report.title is not None:
        entry.title = (report.title, stamp)
    if report.display_agent is not None:
        entry.display_agent = (report.display_agent, stamp)
    for key, label in report.state_labels.items():
        entry.state_labels[key] = (label, stamp)


def effective_presentation(
    entries: Iterable[PresentationEntry], visible: Callable[[PresentationEntry], bool], now: int
) -> Presentation:
    """Newest visible title and display name; state labels merged oldest → newest."""
    shown = [e for e in entries if e.has_fields() and not e.expired(now) and visible(e)]
    titles = [e.title for e in shown if e.title is not None]
    displays = [e.display_agent for e in shown if e.display_agent is not None]
    labels = sorted(
        ((stamp, key, label) for e in shown for key, (label, stamp) in e.state_labels.items()),
        key=lambda item: item[0],
    )
    merged: dict[str, str] = {}
    for _, key, label in labels:
        merged[key] = label
    return Presentation(
        title=max(titles, key=lambda v: v[1])[0] if titles else None,
        display_agent=max(displays, key=lambda v: v[1])[0] if displays else None,
        state_labels=tuple(sorted(merged.items())),
    )


def official_source_of(agent: Agent) -> str | None:
    """The agent's official integration source when (source, label) is an official pair."""
    source = AGENT_INFO[agent].hook_source
    return source if source is not None and is_official(source, agent.label) else None


def metadata_report_agent(
    source: str, agent_label: str | None, applies_to_source: str | None
) -> Agent | None:
    """The agent a report speaks for: its label, else the agent whose official source it is."""
    if agent_label is not None:
        known = parse_agent_label(agent_label)
        if known is not None:
            return known
    for agent in ALL_AGENTS:
        official = official_source_of(agent)
        if official is not None and official in (source, applies_to_source):
            return agent
    return None
