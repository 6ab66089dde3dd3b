"""Agent commands as plain decisions (PURE): names, start checks, waits, prompts.

The server's ``agent.*`` methods (herdr-spec §3.3) resolve a target, check their
parameters and then wait on live state; everything that is a rule rather than I/O
lives here so it is tested without a server: agent-name syntax, the ``agent start``
validation order and its error codes, which statuses satisfy a wait, how several
waited-on targets combine (``--any``/``--all``) and what a prompt's delivery stages
mean.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence

from msgspec import Struct

from herdr.detect.agents import (
    Agent,
    is_user_agent,
    parse_canonical_agent_label,
    start_command,
    user_agents,
)
from herdr.vocab import STATUS_WORDS, AgentStatus, ErrorCode, HerdrError

NAME_PATTERN = re.compile(r"[a-z][a-z0-9_-]{0,31}")

# `agent start` kinds, in the spec's order (§3.3).
START_KINDS: tuple[str, ...] = tuple(agent.label for agent in Agent)
START_TIMEOUT_DEFAULT_MS = 30_000
START_TIMEOUT_MIN_EXCLUSIVE_MS = 3_000
START_TIMEOUT_MAX_MS = 300_000

# Waits: the default set, and everything a status can be.
ALL_STATUSES = frozenset(STATUS_WORDS)
DEFAULT_UNTIL = frozenset(
    {AgentStatus.IDLE.value, AgentStatus.DONE.value, AgentStatus.BLOCKED.value}
)

# Prompts: Enter follows the paste after this delay; from a non-working state a
# lifecycle change must be seen within PROMPT_STALL_MS.
PROMPT_ENTER_DELAY_MS = 60
PROMPT_STALL_MS = 5_000

STAGE_TYPED = "typed"
STAGE_SUBMITTED = "submitted"
STAGE_TURN_STARTED = "turn_started"


class AgentError(HerdrError):
    """A refused agent command; ``code`` is the API error code (`vocab.ErrorCode`)."""


# --------------------------------------------------------------------------- names


def is_valid_name(name: str) -> bool:
    return NAME_PATTERN.fullmatch(name) is not None


def check_name(name: str) -> str:
    """A valid agent name, or ``invalid_agent_name``."""
    if not is_valid_name(name):
        raise AgentError(
            ErrorCode.INVALID_AGENT_NAME,
            f"invalid agent name {name!r}: use [a-z][a-z0-9_-]{{0,31}}",
        )
    return name


def check_name_free(name: str, taken: Iterable[str]) -> None:
    if name in set(taken):
        raise AgentError(ErrorCode.AGENT_NAME_TAKEN, f"agent name {name!r} is already in use")


# --------------------------------------------------------------------------- targets


class Candidate(Struct, frozen=True):
    """A pane as target resolution sees it."""

    pane_id: str
    aliases: tuple[str, ...]
    name: str | None
    is_agent: bool


def resolve_target(target: str, candidates: Sequence[Candidate], pane_ref: str | None) -> str:
    """The pane id hosting ``target`` (a live agent name, or a pane id hosting an agent).

    ``pane_ref`` is the canonical pane id ``target`` names as a pane reference (legacy
    forms included), or None.
    """
    named = [c for c in candidates if c.is_agent and c.name is not None and c.name == target]
    if len(named) > 1:
        raise AgentError(ErrorCode.AGENT_TARGET_AMBIGUOUS, f"agent target {target!r} is ambiguous")
    if named:
        return named[0].pane_id
    if pane_ref is not None:
        for cand in candidates:
            if cand.pane_id == pane_ref and cand.is_agent:
                return cand.pane_id
    raise AgentError(ErrorCode.AGENT_NOT_FOUND, f"no agent {target!r}")


# --------------------------------------------------------------------------- start


def check_kind(kind: str) -> Agent:
    agent = parse_canonical_agent_label(kind)
    if agent is None or not (kind in START_KINDS or is_user_agent(agent)):
        kinds = [*START_KINDS, *(a.label for a in user_agents())]
        raise AgentError(
            ErrorCode.UNSUPPORTED_AGENT_KIND,
            f"unsupported agent kind {kind!r} (one of: {', '.join(kinds)})",
        )
    return agent


def check_start_timeout(timeout_ms: int | None) -> int:
    if timeout_ms is None:
        return START_TIMEOUT_DEFAULT_MS
    if not START_TIMEOUT_MIN_EXCLUSIVE_MS < timeout_ms <= START_TIMEOUT_MAX_MS:
        raise AgentError(
            ErrorCode.INVALID_AGENT_TIMEOUT,
            f"timeout_ms must be greater than {START_TIMEOUT_MIN_EXCLUSIVE_MS} and at most "
            f"{START_TIMEOUT_MAX_MS}",
        )
    return timeout_ms


def check_args(args: Sequence[str]) -> list[str]:
    """Arguments go on a shell command line: no NUL, no line breaks."""
    for arg in args:
        if any(ch in arg for ch in "\x00\r\n"):
            raise AgentError(
                ErrorCode.INVALID_AGENT_ARGUMENT,
                f"agent argument {arg!r} contains a control character",
            )
    return list(args)


def start_argv(agent: Agent, args: Sequence[str]) -> list[str]:
    return [*start_command(agent), *args]


def command_line(argv: Sequence[str]) -> str:
    """What is typed into the pane's shell to launch the agent."""
    return shlex.join(argv)


class StartCheck(Struct, frozen=True):
    """What a candidate pane looks like to ``agent start``."""

    has_command: bool
    has_agent: bool
    launch_pending: bool
    shell_in_foreground: bool


def check_start_pane(pane: StartCheck) -> None:
    """The pane must be an available shell: no command, no agent, shell in foreground."""
    if pane.launch_pending:
        raise AgentError(
            ErrorCode.AGENT_LAUNCH_PENDING, "an agent launch is already pending in this pane"
        )
    if pane.has_command or pane.has_agent:
        raise AgentError(
            ErrorCode.AGENT_PANE_UNAVAILABLE, "the pane does not host an available shell"
        )
    if not pane.shell_in_foreground:
        raise AgentError(ErrorCode.AGENT_PANE_BUSY, "the pane's shell is running another program")


# --------------------------------------------------------------------------- waits


def until_set(until: Iterable[str] | None) -> frozenset[str]:
    """``--until`` values (empty or absent: idle, done, blocked)."""
    chosen = frozenset(until or ())
    unknown = chosen - ALL_STATUSES
    if unknown:
        raise AgentError(ErrorCode.INVALID_PARAMS, f"unknown status {sorted(unknown)[0]!r}")
    return chosen or DEFAULT_UNTIL


def satisfied(status: str, until: frozenset[str]) -> bool:
    return status in until


class WaitOutcome(Struct, frozen=True):
    """A multi-target wait's decision: done, and which targets matched."""

    done: bool
    matched: tuple[str, ...]


def combine(statuses: Mapping[str, str], until: frozenset[str], mode: str) -> WaitOutcome:
    """``any``: the first target (in order) that matches; ``all``: every one must."""
    matched = tuple(t for t, status in statuses.items() if satisfied(status, until))
    if mode == "all":
        return WaitOutcome(len(matched) == len(statuses), matched)
    return WaitOutcome(bool(matched), matched[:1])


# --------------------------------------------------------------------------- prompts


def check_promptable(status: str) -> None:
    if status == AgentStatus.BLOCKED:
        raise AgentError(
            ErrorCode.AGENT_BLOCKED, "the agent is blocked; answer it before prompting"
        )


def prompt_stall_budget(timeout_ms: int | None) -> tuple[int, str]:
    """How long to wait for the turn to start, and the error when it does not."""
    if timeout_ms is not None and timeout_ms <= PROMPT_STALL_MS:
        return timeout_ms, ErrorCode.TIMEOUT.value
    return PROMPT_STALL_MS, ErrorCode.AGENT_PROMPT_STALLED.value
