"""Arbitration of hook authority vs. screen detection (detection-spec §9, §11.3)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import pytest

from herdr import vocab
from herdr.detect.agents import Agent, parse_canonical_agent_label
from herdr.runtime import agent_state as ags
from herdr.runtime.agent_state import (
    AgentSession,
    SessionRef,
    State,
    Status,
    TerminalAgentState,
    Update,
)
from herdr.runtime.metadata import ReportError, parse_pane_metadata_report

VECTORS = json.loads((Path(__file__).parent / "data" / "arbitration_vectors.json").read_text())[
    "vectors"
]
BASE_MS = 100_000

# --------------------------------------------------------------------------- the DSL


@dataclass
class Run:
    """Interprets the §11.3 event notation against one TerminalAgentState."""

    viewed: bool = True
    st: TerminalAgentState = field(default_factory=TerminalAgentState)
    clock: int = BASE_MS
    symbols: dict[str, int] = field(default_factory=dict)
    updates: list[Update | None] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    labels: list[str | None] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)

    def time(self, expr: str | None) -> int:
        default = self.clock + 1
        if expr is None:
            return default
        m = re.fullmatch(r"\s*(\w+)\s*(?:\+\s*(\d+)\s*(ms|s))?\s*", expr)
        assert m, expr
        name, amount, unit = m.groups()
        base = self.symbols.setdefault(name, default)
        offset = 0 if amount is None else int(amount) * (1000 if unit == "s" else 1)
        return base + offset

    def event(self, text: str) -> None:
        m = re.fullmatch(r"(\w+)\((.*)\)(?:@(.+))?", text.strip())
        assert m, text
        op, raw_args, when = m.groups()
        args = [a.strip() for a in raw_args.split(",")] if raw_args.strip() else []
        at = self.time(when)
        self.clock = max(self.clock, at)
        update = getattr(self, f"op_{op.lower()}")(args, at)
        self.updates.append(update)
        self.trace.append(self.st.state)
        self.labels.append(self.st.label)
        self.statuses.append(ags.pane_status(self.st))

    def op_det(self, args: list[str], at: int) -> Update:
        flags = set(args[2:])
        return ags.apply_detection(
            self.st,
            agent(args[0]),
            state(args[1]),
            visible_blocker="vb" in flags,
            visible_working="vw" in flags,
            at=at,
            viewed=self.viewed,
        )

    def op_exit(self, args: list[str], at: int) -> Update:
        return ags.apply_detection(
            self.st, agent(args[0]), "idle", process_exited=True, at=at, viewed=self.viewed
        )

    def op_proc(self, args: list[str], at: int) -> Update:
        found = agent(args[0])
        assert found is not None
        return ags.apply_process_detected(self.st, found, at=at, viewed=self.viewed)

    def op_anchor(self, args: list[str], at: int) -> Update:
        source, label, raw_ref = args
        update = ags.apply_detection(
            self.st, agent(label), self.st.fallback_state, at=at, viewed=self.viewed
        )
        ags.restore_session(self.st, AgentSession(source, label, ref(raw_ref)))
        return update

    def op_hook(self, args: list[str], at: int) -> Update:
        source, label, raw_state = args[:3]
        seq = opt_int(args[3]) if len(args) > 3 else None
        session = ref(args[4]) if len(args) > 4 else None
        return ags.apply_hook(
            self.st,
            source,
            label,
            state(raw_state),
            seq=seq,
            session_ref=session,
            now=at,
            viewed=self.viewed,
        )

    def op_session(self, args: list[str], at: int) -> Update:
        source, label, raw_ref, raw_seq, start = args
        return ags.apply_session(
            self.st,
            source,
            label,
            ref(raw_ref),
            seq=opt_int(raw_seq),
            start_source=None if start == "-" else start,
            now=at,
            viewed=self.viewed,
        )

    def op_clear(self, args: list[str], at: int) -> Update:
        source = None if args[0] == "none" else args[0]
        seq = None if len(args) < 2 or args[1] == "none" else int(args[1])
        return ags.clear_authority(self.st, source=source, seq=seq, now=at, viewed=self.viewed)

    def op_focus(self, args: list[str], at: int) -> None:
        del args, at
        ags.mark_seen(self.st)


def agent(text: str) -> Agent | None:
    return None if text == "none" else parse_canonical_agent_label(text)


def state(text: str) -> State:
    assert text in ags.STATES, text
    return text  # type: ignore[return-value]


def opt_int(text: str) -> int | None:
    return None if text == "-" else int(text)


def ref(text: str) -> SessionRef:
    kind, _, value = text.partition(" ")
    if not value:
        return SessionRef("id", kind)
    assert kind in ("id", "path")
    return SessionRef("id", value) if kind == "id" else SessionRef("path", value)


def run_events(events: list[str], *, viewed: bool = True) -> Run:
    run = Run(viewed=viewed)
    for text in events:
        run.event(text)
    return run


def _check(run: Run, expect: dict[str, Any]) -> None:
    st = run.st
    last = run.updates[-1]
    for key, want in expect.items():
        if key == "state":
            assert st.state == want
        elif key == "label":
            assert st.label == want
        elif key == "known_agent":
            known = ags.effective_known_agent(st)
            assert (known.label if known else None) == want
        elif key == "fallback":
            assert st.fallback_state == want
        elif key == "detected":
            assert (st.detected_agent.label if st.detected_agent else None) == want
        elif key == "full_active":
            assert ags.full_lifecycle_active(st) is want
        elif key == "hook":
            got = None if st.hook is None else {"source": st.hook.source, "state": st.hook.state}
            assert got == want
        elif key == "session":
            session = ags.session_identity(st)
            assert session is not None
            got_ref = f"{session.ref.kind} {session.ref.value}"
            assert {"source": session.source, "agent": session.agent, "ref": got_ref} == want
        elif key == "trace":
            assert run.trace == want
        elif key == "labels":
            assert run.labels == want
        elif key == "statuses":
            assert run.statuses == want
        elif key == "accepted":
            assert [u.accepted if u else None for u in run.updates] == want
        elif key == "completed":
            assert [u.completed if u else False for u in run.updates] == want
        elif key == "suppress_notification":
            assert [u.suppress_notification if u else False for u in run.updates] == want
        elif key == "released":
            assert last is not None and last.agent_released is want
        elif key == "last_change":
            assert last is not None and last.effective_changed is want
        else:  # pragma: no cover - a typo in the fixture
            raise AssertionError(f"unknown expectation {key}")


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_arbitration_vector(vector: dict[str, Any]) -> None:
    run = run_events(vector["events"], viewed=vector.get("viewed", True))
    _check(run, vector["expect"])


def test_fixture_holds_all_spec_vectors() -> None:
    assert [v["id"] for v in VECTORS] == [f"AV{i}" for i in range(1, 27)]


# --------------------------------------------------------------------------- effective state


def test_fresh_terminal_is_unknown_without_agent() -> None:
    st = TerminalAgentState()
    assert ags.effective_state(st) == "unknown"
    assert ags.effective_label(st) is None
    assert ags.pane_status(st) == "unknown"
    assert ags.rollup_member(st) is None


def test_visible_blocker_needs_screen_not_older_than_hook() -> None:
    run = run_events(
        ["DET(codex, idle)", "DET(codex, blocked, vb)@t", "HOOK(custom:ci, codex, working)@t+5 ms"]
    )
    assert run.st.state == "working"  # guard 3: the screen is older than the hook
    run.event("DET(codex, blocked, vb)@t+900 ms")
    assert run.trace[-1] == "blocked"  # the stable-blocker refresh wins it back


def test_conflict_clearing_ignores_observations_older_than_the_hook() -> None:
    run = run_events(["HOOK(custom:x, claude, blocked)@t", "DET(grok, working)@t+0 ms"])
    assert run.st.hook is None  # same millisecond: not newer, cleared
    run = run_events(["DET(grok, idle)@t0", "HOOK(custom:x, grok, blocked)@t0+5 ms"])
    run.event("DET(claude, working)@t0+1 ms")  # queued from before the hook
    assert run.st.hook is not None and run.st.label == "grok"


def test_unsequenced_report_is_ignored_once_the_source_used_seq() -> None:
    run = run_events(["HOOK(custom:x, codex, working, 5)", "HOOK(custom:x, codex, idle)"])
    assert run.trace == ["working", "working"]
    other = run_events(["HOOK(custom:x, codex, working)", "HOOK(custom:x, codex, idle)"])
    assert other.trace == ["working", "idle"]


def test_replay_needs_a_state_report_newer_than_the_session_claim() -> None:
    run = run_events(
        [
            "DET(kimi, idle)",
            "HOOK(herdr:kimi, kimi, working, 9, id K)",
            "SESSION(herdr:kimi, kimi, id K, 10, startup)",
        ]
    )
    assert run.trace == ["idle", "idle", "idle"]
    assert ags.full_lifecycle_active(run.st) is False
    session = ags.session_identity(run.st)
    assert session is not None and session.ref == SessionRef("id", "K")


def test_replay_needs_the_same_session() -> None:
    run = run_events(
        [
            "DET(kimi, idle)",
            "HOOK(herdr:kimi, kimi, working, 11, id OTHER)",
            "SESSION(herdr:kimi, kimi, id K, 10, startup)",
        ]
    )
    assert run.st.state == "idle" and run.st.hook is None


def test_full_session_claim_needs_a_recognised_start_and_seq() -> None:
    for claim in (
        "SESSION(herdr:kimi, kimi, id K, 10, -)",
        "SESSION(herdr:kimi, kimi, id K, -, startup)",
    ):
        run = run_events(["DET(kimi, idle)", claim])
        assert run.updates[-1] is not None and not run.updates[-1].accepted


def test_visible_blocker_never_overrides_full_hook() -> None:
    run = run_events(
        [
            "DET(kimi, idle)",
            "SESSION(herdr:kimi, kimi, id K, 10, startup)",
            "HOOK(herdr:kimi, kimi, working, 11, id K)",
            "DET(kimi, blocked, vb)",
        ]
    )
    assert run.st.state == "working"
    assert run.updates[-1] is not None and not run.updates[-1].accepted


def test_update_flags_for_events() -> None:
    run = run_events(["DET(codex, idle)"])
    first = run.updates[0]
    assert first is not None
    assert first.agent_changed and first.status_changed and first.state_changed
    run.event("DET(codex, idle)")
    same = run.updates[-1]
    assert same is not None
    assert not (same.agent_changed or same.status_changed or same.state_changed)


def test_process_exit_reports_release_with_final_status() -> None:
    run = run_events(["DET(codex, working)"], viewed=False)
    run.event("EXIT(codex)")
    update = run.updates[-1]
    assert update is not None
    assert update.agent_released and update.agent_changed
    assert update.final_status == "done"  # finished unseen
    assert update.current.status == "unknown"  # the pane no longer has an agent
    assert ags.rollup_member(run.st) is None


def test_replacement_process_after_exit_is_fresh_evidence() -> None:
    run = run_events(["DET(codex, working)", "EXIT(codex)", "PROC(codex)"])
    assert run.st.recent_exit is None
    assert run.st.label == "codex"
    run.event("DET(codex, idle)")
    assert run.updates[-1] is not None and not run.updates[-1].completed


def test_recent_exit_blocks_custom_hooks_until_fresh_detection() -> None:
    run = run_events(["DET(codex, working)", "EXIT(codex)", "HOOK(custom:x, codex, working)"])
    assert run.updates[-1] is not None and not run.updates[-1].accepted
    run.event("DET(codex, idle)")
    run.event("HOOK(custom:x, codex, working)")
    assert run.st.state == "working"


def test_pty_exit_publishes_idle_for_the_agent() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CLAUDE, "working", at=1)
    update = ags.apply_pty_exit(st, now=2)
    assert update is not None and update.agent_released
    assert st.state == "idle" and st.label is None
    assert ags.apply_pty_exit(TerminalAgentState(), now=3) is None


# --------------------------------------------------------------------------- API layer


def test_report_agent_rejects_blank_agent_before_any_change() -> None:
    st = TerminalAgentState()
    with pytest.raises(ReportError) as err:
        ags.report_agent(st, source="custom:x", agent="   ", state="working", now=1)
    assert err.value.code == "invalid_agent"
    with pytest.raises(ReportError) as err:
        ags.report_agent(st, source="custom:x", agent="x", state="busy", now=1)
    assert err.value.code == "invalid_params"
    assert st.hook is None


def test_report_agent_normalises_the_label() -> None:
    st = TerminalAgentState()
    ags.report_agent(st, source="custom:x", agent=" Claude-Code ", state="working", now=1)
    assert st.hook is not None and st.hook.label == "claude"
    ags.report_agent(st, source="custom:y", agent=" My Bot ", state="idle", now=2)
    assert st.hook is not None and st.hook.label == "My Bot"  # unknown labels stay raw


def test_reserved_native_state_report_becomes_a_session_update() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CLAUDE, "idle", at=1)
    update = ags.report_agent(
        st,
        source="herdr:claude",
        agent="claude",
        state="working",
        seq=5,
        session_id="abc",
        now=2,
    )
    assert st.hook is None and st.state == "idle"
    assert update.session_changed
    assert ags.session_identity(st) == AgentSession(
        "herdr:claude", "claude", SessionRef("id", "abc")
    )


def test_session_identity_only_state_report_is_dropped() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.HERMES, "idle", at=1)
    update = ags.report_agent(st, source="herdr:hermes", agent="hermes", state="blocked", now=2)
    assert not update.accepted and st.state == "idle"


@pytest.mark.parametrize(
    ("source", "label", "session_id", "session_path", "expected"),
    [
        ("herdr:pi", "pi", "i", "/s/a.jsonl", SessionRef("path", "/s/a.jsonl")),
        ("herdr:pi", "pi", "i", None, SessionRef("id", "i")),
        ("herdr:omp", "omp", None, "/s/b", SessionRef("path", "/s/b")),
        ("herdr:codex", "codex", "c", "/ignored", SessionRef("id", "c")),
        ("custom:x", "codex", "c", None, None),
        ("herdr:pi", "omp", "c", None, None),
        ("herdr:codex", "codex", "x" * 512, None, SessionRef("id", "x" * 512)),
        ("herdr:codex", "codex", "x" * 513, None, None),
        ("herdr:codex", "codex", "a\x07b", None, None),
        ("herdr:pi", "pi", None, "/" + "p" * 4095, SessionRef("path", "/" + "p" * 4095)),
        ("herdr:pi", "pi", None, "/" + "p" * 4096, None),
    ],
)
def test_session_ref_from_report(
    source: str,
    label: str,
    session_id: str | None,
    session_path: str | None,
    expected: SessionRef | None,
) -> None:
    assert ags.session_ref_from_report(source, label, session_id, session_path) == expected


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("startup", "startup"),
        ("branch", "branch"),
        (" Resume ", "resume"),
        ("boot", None),
        (None, None),
    ],
)
def test_session_start_source_is_kept_only_when_known(raw: str | None, kept: str | None) -> None:
    assert ags.normalize_session_start_source(raw) == kept


def test_same_owner_session_id_needs_an_allowed_start_source() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CLAUDE, "idle", at=1)
    claim = ags.report_agent_session
    claim(st, source="herdr:claude", agent="claude", session_id="A", seq=1, now=2)
    claim(st, source="herdr:claude", agent="claude", session_id="B", seq=2, now=3)
    assert ags.session_identity(st) == AgentSession("herdr:claude", "claude", SessionRef("id", "A"))
    claim(
        st,
        source="herdr:claude",
        agent="claude",
        session_id="B",
        seq=3,
        session_start_source="clear",
        now=4,
    )
    assert ags.session_identity(st) == AgentSession("herdr:claude", "claude", SessionRef("id", "B"))


def test_session_of_another_owner_is_not_taken_over_without_foreground() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CODEX, "idle", at=1)
    ags.report_agent_session(st, source="herdr:codex", agent="codex", session_id="C", now=2)
    update = ags.report_agent_session(
        st, source="herdr:claude", agent="claude", session_id="X", now=3
    )
    assert not update.accepted


# --------------------------------------------------------------------------- clear / release


def test_clear_authority_falls_back_to_screen_state() -> None:
    run = run_events(["DET(codex, idle)", "HOOK(custom:x, codex, working)"])
    update = ags.clear_authority(run.st, source="custom:other", now=run.clock + 1)
    assert not update.accepted and run.st.state == "working"
    update = ags.clear_authority(run.st, now=run.clock + 2)
    assert update.accepted and update.current.state == "idle" and run.st.hook is None


def test_clear_of_full_hook_parks_the_source() -> None:
    run = run_events(
        [
            "DET(kimi, idle)",
            "SESSION(herdr:kimi, kimi, id K, 10, startup)",
            "HOOK(herdr:kimi, kimi, working, 11, id K)",
            "CLEAR(herdr:kimi, 12)",
        ]
    )
    assert run.st.state == "idle"
    run.event("HOOK(herdr:kimi, kimi, working, 13, id K)")
    assert run.updates[-1] is not None and not run.updates[-1].accepted  # same session: parked
    run.event("HOOK(herdr:kimi, kimi, working, 14, id K2)")
    assert run.trace[-1] == "working"  # a new session re-anchors the source


def test_release_by_custom_reporter_clears_agent() -> None:
    st = TerminalAgentState()
    ags.report_agent(st, source="user:bot", agent="my-bot", state="working", now=1)
    ags.set_agent_name(st, "reviewer")
    update = ags.release_agent(st, source="user:bot", agent="my-bot", now=2)
    assert update.accepted and update.agent_released and update.name_changed
    assert st.label is None and st.agent_name is None
    assert update.final_status is not None


@pytest.mark.parametrize(
    ("source", "agent_name"),
    [("herdr:pi", "pi"), ("user:other", "my-bot"), ("user:bot", "other-bot")],
)
def test_release_is_ignored_for_official_or_foreign_reporters(source: str, agent_name: str) -> None:
    st = TerminalAgentState()
    ags.report_agent(st, source="user:bot", agent="my-bot", state="working", now=1)
    update = ags.release_agent(st, source=source, agent=agent_name, now=2)
    assert not update.accepted and st.label == "my-bot"


def test_release_keeps_a_process_owned_agent() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CODEX, "idle", at=1)
    ags.report_agent(st, source="custom:ci", agent="codex", state="working", now=2)
    update = ags.release_agent(st, source="custom:ci", agent="codex", now=3)
    assert update.accepted and not update.agent_released
    assert st.label == "codex" and st.state == "idle"


# --------------------------------------------------------------------------- sequences


def test_hook_sequences_are_per_source() -> None:
    st = TerminalAgentState()
    ags.report_agent(st, source="custom:a", agent="a", state="working", seq=5, now=1)
    assert not ags.report_agent(
        st, source="custom:a", agent="a", state="idle", seq=5, now=2
    ).accepted
    assert ags.report_agent(st, source="custom:a", agent="a", state="idle", seq=6, now=3).accepted


def test_hook_sequence_sources_are_capped_at_32() -> None:
    st = TerminalAgentState()
    for i in range(ags.MAX_HOOK_SEQUENCE_SOURCES):
        update = ags.report_agent(
            st, source=f"custom:s{i}", agent="bot", state="working", seq=1, now=i + 1
        )
        assert update.accepted
    over = ags.report_agent(st, source="custom:s32", agent="bot", state="idle", seq=1, now=100)
    assert not over.accepted and "custom:s32" not in st.hook_seqs
    assert st.state == "working"
    again = ags.report_agent(st, source="custom:s0", agent="bot", state="idle", seq=2, now=101)
    assert again.accepted
    # Official sources are a fixed set and never count against the cap.
    ags.apply_detection(st, Agent.KIMI, "idle", at=102)
    claim = ags.report_agent_session(
        st,
        source="herdr:kimi",
        agent="kimi",
        session_id="K",
        seq=5,
        session_start_source="startup",
        now=103,
    )
    assert claim.accepted and st.hook_seqs["herdr:kimi"] == 5


# --------------------------------------------------------------------------- seen, done, rollup


def _working_then_idle(
    *, viewed: bool, launch_pending: bool = False
) -> tuple[TerminalAgentState, Update]:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CODEX, "idle", at=1)
    ags.apply_detection(st, Agent.CODEX, "working", at=2)
    update = ags.apply_detection(
        st, Agent.CODEX, "idle", at=3, viewed=viewed, launch_pending=launch_pending
    )
    return st, update


@pytest.mark.parametrize(
    ("viewed", "launch_pending", "status", "completed"),
    [
        (False, False, "done", True),
        (True, False, "idle", True),
        (False, True, "idle", False),
    ],
    ids=["background-done", "viewed-idle", "launch-pending"],
)
def test_completion_sets_seen_from_view(
    viewed: bool, launch_pending: bool, status: Status, completed: bool
) -> None:
    st, update = _working_then_idle(viewed=viewed, launch_pending=launch_pending)
    assert ags.pane_status(st) == status
    assert update.completed is completed
    assert update.suppress_notification is launch_pending


def test_blocked_to_idle_is_a_completion() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CODEX, "blocked", visible_blocker=True, at=1)
    update = ags.apply_detection(st, Agent.CODEX, "idle", at=2, viewed=False)
    assert update.completed and ags.pane_status(st) == "done"


def test_unknown_to_idle_is_completion_only_for_the_same_label() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CODEX, "unknown", at=1)
    update = ags.apply_detection(st, Agent.CODEX, "idle", at=2, viewed=False)
    assert update.completed and ags.pane_status(st) == "done"
    other = TerminalAgentState()
    update = ags.apply_detection(other, Agent.CODEX, "idle", at=1, viewed=False)
    assert not update.completed and ags.pane_status(other) == "idle"


def test_reads_never_mark_seen_but_focus_does() -> None:
    st, _ = _working_then_idle(viewed=False)
    for _ in range(3):
        assert ags.pane_status(st) == "done"
        ags.snapshot(st)
    assert ags.mark_seen(st) is True
    assert ags.pane_status(st) == "idle"
    assert ags.mark_seen(st) is False


def test_non_idle_state_marks_seen() -> None:
    st, _ = _working_then_idle(viewed=False)
    ags.apply_detection(st, Agent.CODEX, "working", at=10)
    assert st.seen and ags.pane_status(st) == "working"


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ([], "unknown"),
        ([None, None], "unknown"),
        (["unknown"], "unknown"),
        (["idle", "unknown"], "idle"),
        (["idle", "working"], "working"),
        (["working", "done"], "done"),
        (["done", "blocked", "working"], "blocked"),
        ([None, "idle"], "idle"),
        (["blocked", None], "blocked"),
    ],
)
def test_rollup(statuses: list[Status | None], expected: Status) -> None:
    assert vocab.rollup(statuses) == expected


def test_status_types_spell_the_vocabulary() -> None:
    """The Literal types mypy checks are the words of herdr.vocab, in its order."""
    assert get_args(State) == vocab.REPORTABLE_STATES
    assert get_args(Status) == vocab.STATUS_WORDS
    assert frozenset(vocab.REPORTABLE_STATES) == ags.STATES
    assert (ags.IDLE, ags.WORKING, ags.BLOCKED, ags.UNKNOWN) == vocab.REPORTABLE_STATES
    assert vocab.AgentStatus.DONE.value == ags.DONE


@pytest.mark.parametrize(
    ("state_", "seen", "status"),
    [
        ("idle", False, "done"),
        ("idle", True, "idle"),
        ("working", False, "working"),
        ("blocked", True, "blocked"),
        ("unknown", False, "unknown"),
    ],
)
def test_agent_status_mapping(state_: State, seen: bool, status: Status) -> None:
    assert ags.agent_status(state_, seen) == status


# --------------------------------------------------------------------------- metadata channel


def _meta(st: TerminalAgentState, now: int, **params: Any) -> Update:
    return ags.apply_metadata(st, parse_pane_metadata_report(**params), now=now)


def test_metadata_is_display_only() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CLAUDE, "working", at=1)
    update = _meta(st, 2, source="user:t", title="Refactor auth", state_labels={"working": "deep"})
    assert update.presentation_changed and update.status_changed
    assert not update.state_changed and st.state == "working"
    assert st.presentation.title == "Refactor auth"
    assert st.presentation.labels() == {"working": "deep"}


def test_metadata_guards_follow_agent_and_hook_source() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CLAUDE, "working", at=1)
    _meta(st, 2, source="user:t", agent="claude", applies_to_source="custom:x", title="T")
    assert st.presentation.title is None  # no hook from custom:x
    ags.report_agent(st, source="custom:x", agent="claude", state="working", now=3)
    assert st.presentation.title == "T"
    _meta(st, 4, source="user:u", agent="codex", display_agent="Codex!")
    assert st.presentation.display_agent is None  # label guard


def test_metadata_newest_title_and_merged_labels() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CLAUDE, "idle", at=1)
    _meta(st, 2, source="a", title="first", state_labels={"idle": "a-idle", "working": "a-w"})
    _meta(st, 3, source="b", title="second", state_labels={"idle": "b-idle"})
    assert st.presentation.title == "second"
    assert st.presentation.labels() == {"idle": "b-idle", "working": "a-w"}
    _meta(st, 4, source="b", clear_title=True)
    assert st.presentation.title == "first"


def test_metadata_ttl_expires_presentation_and_tokens() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CLAUDE, "idle", at=1)
    _meta(st, 10, source="a", title="soon gone", tokens={"k": "v"}, ttl_ms=100)
    assert ags.next_metadata_deadline(st) == 110
    update = ags.expire_metadata(st, now=109)
    assert not update.tokens_changed and st.presentation.title == "soon gone"
    update = ags.expire_metadata(st, now=110)
    assert update.tokens_changed and update.presentation_changed
    assert st.presentation.title is None and ags.token_values(st) == {}
    assert ags.next_metadata_deadline(st) is None


def test_metadata_clear_only_keeps_old_ttl() -> None:
    st = TerminalAgentState()
    _meta(st, 10, source="a", title="t", display_agent="d", ttl_ms=100)
    _meta(st, 50, source="a", clear_title=True)
    assert ags.next_metadata_deadline(st) == 110
    _meta(st, 60, source="a", clear_title=True, display_agent="d2")
    assert ags.next_metadata_deadline(st) is None  # a set without TTL cancels it


def test_metadata_stale_seq_is_silently_ignored() -> None:
    st = TerminalAgentState()
    assert _meta(st, 1, source="a", title="one", seq=5).accepted
    assert not _meta(st, 2, source="a", title="two", seq=5).accepted
    assert st.presentation.title == "one"


def test_metadata_of_an_exited_agent_is_dropped_and_blocked() -> None:
    st = TerminalAgentState()
    ags.apply_detection(st, Agent.CLAUDE, "working", at=1)
    _meta(st, 2, source="herdr:claude", agent="claude", title="from hook", seq=1)
    ags.apply_detection(st, Agent.CLAUDE, "idle", process_exited=True, at=3)
    assert not st.presentation_entries and "herdr:claude" not in st.metadata_seqs
    assert not _meta(st, 4, source="herdr:claude", title="late").accepted
    assert not _meta(st, 5, source="user:x", agent="claude", title="late").accepted


def test_metadata_token_limit_is_checked_before_any_change() -> None:
    st = TerminalAgentState()
    for batch in range(2):
        tokens = {f"k{batch}_{i}": "v" for i in range(16)}
        _meta(st, batch + 1, source="a", tokens=tokens)
    assert len(ags.token_values(st)) == 32
    with pytest.raises(ReportError) as err:
        _meta(st, 5, source="a", tokens={"extra": "v"}, title="not applied")
    assert err.value.code == "metadata_token_limit"
    assert st.presentation.title is None
    _meta(st, 6, source="a", tokens={"k0_0": None, "extra": "v"})  # net 32: fine
    assert "extra" in ags.token_values(st)


def test_metadata_sequenced_token_sources_are_capped_at_32() -> None:
    st = TerminalAgentState()
    for i in range(32):
        _meta(st, i + 1, source=f"s{i}", tokens={"k": str(i)}, seq=1)
    with pytest.raises(ReportError) as err:
        _meta(st, 50, source="s32", tokens={"k": "x"}, seq=1)
    assert err.value.code == "metadata_sequence_source_limit"
    assert ags.token_values(st) == {"k": "31"}
    # Presentation-only sequences are unbounded; unsequenced token reports are fine.
    for i in range(40):
        _meta(st, 60 + i, source=f"p{i}", title="t", seq=1)
    _meta(st, 200, source="s33", tokens={"k": "y"})
    assert ags.token_values(st) == {"k": "y"}
    _meta(st, 201, source="s0", tokens={"k": "z"}, seq=2)  # a known source continues
    assert ags.token_values(st) == {"k": "z"}


# ------------------------------------------------- full-lifecycle reports without a session ref


@pytest.mark.parametrize(
    ("events", "trace"),
    [
        pytest.param(
            [
                "DET(opencode, idle)",
                "SESSION(herdr:opencode, opencode, id ses_root, 10, startup)",
                "HOOK(herdr:opencode, opencode, blocked, 11)",
                "HOOK(herdr:opencode, opencode, working, 12, id ses_root)",
                "HOOK(herdr:opencode, opencode, idle, 13, id ses_root)",
            ],
            ["idle", "idle", "blocked", "working", "idle"],
            id="opencode-child-report-keeps-the-anchor",
        ),
        pytest.param(
            [
                "DET(pi, idle)",
                "SESSION(herdr:pi, pi, path /s/a.jsonl, 10, startup)",
                "HOOK(herdr:pi, pi, working, 11)",
                "HOOK(herdr:pi, pi, blocked, 12)",
                "HOOK(herdr:pi, pi, idle, 13, path /s/a.jsonl)",
            ],
            ["idle", "idle", "working", "blocked", "idle"],
            id="pi-unreffed-reports-keep-the-anchor",
        ),
    ],
)
def test_full_report_without_ref_keeps_the_anchored_session(
    events: list[str], trace: list[str]
) -> None:
    """Regression: a FULL report without a session ref (opencode's child sessions) used
    to replace the anchored session with none, so every later report was buffered and the
    pane stuck on that state; the anchored ref now carries over to the new authority."""
    run = run_events(events)
    assert run.trace == trace
    assert run.st.hook is not None and run.st.hook.session_ref is not None
