"""Pure agent-command rules (`herdr.runtime.agents`): names, start checks, waits."""

from __future__ import annotations

import pytest

from herdr.detect.agents import Agent
from herdr.runtime import agents as ra


@pytest.mark.parametrize("name", ["a", "reviewer", "rev-2", "x_y", "a" + "b" * 31])
def test_valid_names(name: str) -> None:
    assert ra.check_name(name) == name


@pytest.mark.parametrize("name", ["", "Bad", "1abc", "-x", "a b", "a" * 33, "é"])
def test_invalid_names(name: str) -> None:
    with pytest.raises(ra.AgentError) as info:
        ra.check_name(name)
    assert info.value.code == "invalid_agent_name"


def test_name_taken() -> None:
    ra.check_name_free("a", ["b"])
    with pytest.raises(ra.AgentError) as info:
        ra.check_name_free("a", ["a"])
    assert info.value.code == "agent_name_taken"


def test_kinds_and_argv() -> None:
    assert len(ra.START_KINDS) == 22
    assert ra.check_kind("agy") is Agent.ANTIGRAVITY
    for bad in ("nosuch", "Claude", "claude-code", ""):
        with pytest.raises(ra.AgentError) as info:
            ra.check_kind(bad)
        assert info.value.code == "unsupported_agent_kind"
    assert ra.start_argv(Agent.CURSOR, ["-p"]) == ["cursor-agent", "-p"]
    assert ra.command_line(["codex", "--model", "x y"]) == "codex --model 'x y'"


@pytest.mark.parametrize(
    ("timeout", "expected"), [(None, 30_000), (3001, 3001), (300_000, 300_000)]
)
def test_start_timeout_bounds(timeout: int | None, expected: int) -> None:
    assert ra.check_start_timeout(timeout) == expected


@pytest.mark.parametrize("timeout", [0, 1000, 3000, 300_001])
def test_start_timeout_rejected(timeout: int) -> None:
    with pytest.raises(ra.AgentError) as info:
        ra.check_start_timeout(timeout)
    assert info.value.code == "invalid_agent_timeout"


def test_args_reject_line_breaks() -> None:
    assert ra.check_args(["--a", "b c"]) == ["--a", "b c"]
    for bad in ("a\nb", "a\rb", "a\x00b"):
        with pytest.raises(ra.AgentError) as info:
            ra.check_args([bad])
        assert info.value.code == "invalid_agent_argument"


@pytest.mark.parametrize(
    ("check", "code"),
    [
        (ra.StartCheck(False, False, True, True), "agent_launch_pending"),
        (ra.StartCheck(True, False, False, True), "agent_pane_unavailable"),
        (ra.StartCheck(False, True, False, True), "agent_pane_unavailable"),
        (ra.StartCheck(False, False, False, False), "agent_pane_busy"),
    ],
)
def test_start_pane_checks(check: ra.StartCheck, code: str) -> None:
    with pytest.raises(ra.AgentError) as info:
        ra.check_start_pane(check)
    assert info.value.code == code


def test_start_pane_available() -> None:
    ra.check_start_pane(ra.StartCheck(False, False, False, True))


def test_until_defaults_and_unknown() -> None:
    assert ra.until_set(None) == {"idle", "done", "blocked"}
    assert ra.until_set([]) == {"idle", "done", "blocked"}
    assert ra.until_set(["unknown"]) == {"unknown"}
    with pytest.raises(ra.AgentError):
        ra.until_set(["sleeping"])


def test_combine_any_all() -> None:
    until = frozenset({"blocked"})
    statuses = {"a": "working", "b": "blocked", "c": "blocked"}
    assert ra.combine(statuses, until, "any") == ra.WaitOutcome(True, ("b",))
    assert ra.combine(statuses, until, "all") == ra.WaitOutcome(False, ("b", "c"))
    assert ra.combine({"b": "blocked"}, until, "all").done


def test_resolve_target() -> None:
    cands = [
        ra.Candidate("w1:p1", (), "rev", True),
        ra.Candidate("w1:p2", (), None, True),
        ra.Candidate("w1:p3", (), None, False),
    ]
    assert ra.resolve_target("rev", cands, None) == "w1:p1"
    assert ra.resolve_target("w1:p2", cands, "w1:p2") == "w1:p2"
    for target, ref in (("w1:p3", "w1:p3"), ("nobody", None)):
        with pytest.raises(ra.AgentError) as info:
            ra.resolve_target(target, cands, ref)
        assert info.value.code == "agent_not_found"
    twice = [*cands, ra.Candidate("w1:p4", (), "rev", True)]
    with pytest.raises(ra.AgentError) as info:
        ra.resolve_target("rev", twice, None)
    assert info.value.code == "agent_target_ambiguous"


def test_prompt_rules() -> None:
    ra.check_promptable("working")
    with pytest.raises(ra.AgentError) as info:
        ra.check_promptable("blocked")
    assert info.value.code == "agent_blocked"
    assert ra.prompt_stall_budget(None) == (5000, "agent_prompt_stalled")
    assert ra.prompt_stall_budget(60_000) == (5000, "agent_prompt_stalled")
    assert ra.prompt_stall_budget(2000) == (2000, "timeout")
