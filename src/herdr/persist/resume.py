"""PURE native agent resume: which command brings a saved agent conversation back.

After a server restart the processes are gone; the conversation survives only in the
agent's own store. An official integration reported a native session reference
(herdr-spec §4.2); here it becomes that agent's resume argv, or a precise reason why
the pane gets a plain shell in its saved cwd instead. File checks come in as
callables (`exists`, `which`) so this module does no I/O.

A stored value is data, never an option or shell text. It is checked again here
(`session_refs`: no leading ``-``, no whitespace or control characters), every
builder refuses an item that could read as a flag, and `command_line` shell-quotes
each item (the line is typed into a POSIX shell). Per agent, how the value is bound:

* ``--flag=<value>`` (one argv item, the parser cannot take it for a flag): claude
  (commander.js; ``--resume`` takes an *optional* value, so a separate ``-x`` would
  not even be its value), omp and copilot (spec form), qwen, opencode and kilo
  (yargs), kimi (typer/click).
* ``--`` before the positional id: codex (``codex resume -- <id>``, clap).
* ``--flag <value>`` (two items): pi (its hand-written parser takes the next item
  verbatim and knows no ``--session=`` form), and devin, droid, qodercli, cursor-agent,
  grok, hermes, mastracode, agy and letta, whose parsers were not verified to accept
  ``=``; here the no-leading-``-`` rule is what keeps the value from being a flag.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Literal, TypeVar

from msgspec import Struct

from herdr.persist import session_refs
from herdr.runtime.agent_state import AgentSession

K = TypeVar("K", bound=Hashable)
RefKind = Literal["id", "path"]
FallbackReason = Literal[
    "disabled",  # [session] resume_agents_on_restore = false
    "missing_ref",  # no session reference was saved for the pane
    "unsupported_agent",  # the agent has no native resume command
    "unofficial_source",  # reported by a custom source, not herdr's integration
    "invalid_ref",  # empty, too long, leading '-', whitespace/control, wrong kind, relative
    "duplicate_ref",  # an earlier pane in this restore already resumes it
    "stale_ref",  # the session file the reference points to is gone
    "not_installed",  # the agent's executable is not on PATH
]
DedupeKey = tuple[str, str, RefKind, str]


class ResumeRecipe(Struct, frozen=True):
    """One row of the resume table."""

    agent: str  # canonical label
    product: str
    source: str  # the official integration's report source
    min_integration_version: int  # informational: `integration status` advice
    kinds: frozenset[RefKind]
    build: Callable[[str], tuple[str, ...] | None]  # None: the value has no resume form
    # A user kind's ids must match this whole (its template was not reviewed by us).
    strict_id: re.Pattern[str] | None = None

    @property
    def executable(self) -> str:
        """The program the argv starts with (for PATH checks)."""
        argv = self.build("x")
        assert argv is not None
        return argv[0]


class ResumePlan(Struct, frozen=True):
    """Run `argv` in `cwd`; `key` identifies the conversation for de-duplication."""

    agent: str
    argv: tuple[str, ...]
    cwd: str
    key: DedupeKey


class ResumeFallback(Struct, frozen=True):
    """Start a plain shell in `cwd`; `reason` and `detail` go to the log."""

    reason: FallbackReason
    detail: str
    cwd: str


ResumeDecision = ResumePlan | ResumeFallback


def _data(*items: str) -> tuple[str, ...] | None:
    """`items` unless one (after the program and its fixed words) could be an option."""
    return None if any(session_refs.may_be_an_option(item) for item in items) else items


def _flag(*head: str) -> Callable[[str], tuple[str, ...] | None]:
    """``prog --flag <value>`` (value as its own argv item, never one starting with -)."""
    return lambda value: None if _data(value) is None else (*head, value)


def _joined(prog: str, flag: str) -> Callable[[str], tuple[str, ...] | None]:
    """``prog --flag=<value>``: one argv item, bound to the flag by the parser."""
    return lambda value: None if _data(value) is None else (prog, f"{flag}={value}")


def _positional(*head: str) -> Callable[[str], tuple[str, ...] | None]:
    """``prog sub -- <value>``: ``--`` ends the options, so the value is positional."""
    return lambda value: None if _data(value) is None else (*head, "--", value)


def _letta(value: str) -> tuple[str, ...] | None:
    """Letta Code: ``default:<agent-id>`` names an agent's default conversation."""
    if value.startswith("default:"):
        agent_id = value.removeprefix("default:")
        if not agent_id or _data(agent_id) is None:
            return None
        return ("letta", "--conversation", "default", "--agent", agent_id)
    return None if _data(value) is None else ("letta", "--conversation", value)


_ID: frozenset[RefKind] = frozenset({"id"})
_ID_OR_PATH: frozenset[RefKind] = frozenset({"id", "path"})


def _row(
    agent: str,
    product: str,
    source: str,
    version: int,
    build: Callable[[str], tuple[str, ...] | None],
    *,
    kinds: frozenset[RefKind] = _ID,
) -> tuple[str, ResumeRecipe]:
    return agent, ResumeRecipe(agent, product, source, version, kinds, build)


# herdr-spec §4.2 plus Letta Code from the seeds' 18-row table. Minimum integration
# versions follow the spec (the seeds say Grok 2; herdr ships Hermes hooks at v5).
RECIPES: dict[str, ResumeRecipe] = dict(
    [
        _row("pi", "Pi", "herdr:pi", 2, _flag("pi", "--session"), kinds=_ID_OR_PATH),
        _row("omp", "OMP", "herdr:omp", 3, _joined("omp", "--resume"), kinds=_ID_OR_PATH),
        _row("claude", "Claude Code", "herdr:claude", 6, _joined("claude", "--resume")),
        _row("codex", "Codex", "herdr:codex", 5, _positional("codex", "resume")),
        _row("copilot", "GitHub Copilot CLI", "herdr:copilot", 2, _joined("copilot", "--resume")),
        _row("devin", "Devin CLI", "herdr:devin", 2, _flag("devin", "--resume")),
        _row("droid", "Droid", "herdr:droid", 2, _flag("droid", "--resume")),
        _row("kimi", "Kimi Code CLI", "herdr:kimi", 3, _joined("kimi", "--session")),
        _row("qodercli", "Qoder CLI", "herdr:qodercli", 2, _flag("qodercli", "--resume")),
        _row("qwen", "Qwen Code", "herdr:qwen", 1, _joined("qwen", "--resume")),
        _row("cursor", "Cursor Agent CLI", "herdr:cursor", 1, _flag("cursor-agent", "--resume")),
        _row("grok", "Grok CLI", "herdr:grok", 1, _flag("grok", "--resume")),
        _row("opencode", "OpenCode", "herdr:opencode", 5, _joined("opencode", "--session")),
        _row("kilo", "Kilo Code CLI", "herdr:kilo", 1, _joined("kilo", "--session")),
        _row("hermes", "Hermes Agent", "herdr:hermes", 2, _flag("hermes", "--resume")),
        _row("mastracode", "MastraCode", "herdr:mastracode", 1, _flag("mastracode", "--thread")),
        _row("agy", "Antigravity CLI", "herdr:antigravity_cli", 1, _flag("agy", "--conversation")),
        _row("letta", "Letta Code", "herdr:letta", 1, _letta),
    ]
)


# User-defined kinds (docs/user-agents.md "Resume"): the id of a conversation of an
# agent herdr never reviewed goes into an argv the user wrote, so it must look like an
# id and nothing else: a letter or digit first (never '-'), then letters, digits and
# ``._:@+=-``; no spaces, quotes, ';', '$', '/', braces or anything a shell or parser
# could act on. The trusted source is ``herdr:<label>``, the channel herdr's own
# integrations report on; any other source is `unofficial_source`.
USER_SESSION_ID = session_refs.USER_SESSION_ID
SESSION_PLACEHOLDER = "{session}"


def user_source(label: str) -> str:
    """The only source whose session reports a user kind resumes from."""
    return f"herdr:{label}"


def user_recipe(label: str, name: str, template: tuple[str, ...]) -> ResumeRecipe:
    """A user kind's `resume` argv template as a recipe: exactly one item holds
    ``{session}`` (validated by `detect.user_kinds`), replaced by the id in that item
    only, so the id is always inside one argv item and never a program or a word split."""

    def build(value: str) -> tuple[str, ...] | None:
        if not USER_SESSION_ID.fullmatch(value):
            return None
        return tuple(item.replace(SESSION_PLACEHOLDER, value) for item in template)

    return ResumeRecipe(label, name, user_source(label), 0, _ID, build, USER_SESSION_ID)


def dedupe_key(session: AgentSession) -> DedupeKey:
    """Two panes with the same key would fight over one conversation."""
    return (session.source, session.agent, session.ref.kind, session.ref.value)


def _recipe(agent: str, extra: Mapping[str, ResumeRecipe] | None) -> ResumeRecipe | None:
    return RECIPES.get(agent) or (extra.get(agent) if extra is not None else None)


def resume_argv(
    session: AgentSession, extra: Mapping[str, ResumeRecipe] | None = None
) -> list[str] | None:
    """The argv herdr would run to resume ``session`` (None: this session has no resume
    form: another agent, an unofficial source, a reference that could not be typed).
    ``extra``: the user kinds' recipes (`user_recipe`)."""
    recipe = _recipe(session.agent, extra)
    if recipe is None or session.source != recipe.source:
        return None
    if _invalid(session.ref.kind, session.ref.value, recipe) is not None:
        return None
    argv = recipe.build(session.ref.value)
    return list(argv) if argv is not None else None


def plan_resume(
    session: AgentSession | None,
    cwd: str,
    *,
    exists: Callable[[str], bool],
    which: Callable[[str], bool] | None = None,
    extra: Mapping[str, ResumeRecipe] | None = None,
) -> ResumeDecision:
    """The resume command for one pane, or why it falls back to a shell in `cwd`."""
    if session is None:
        return ResumeFallback("missing_ref", "no agent session was saved", cwd)
    recipe = _recipe(session.agent, extra)
    if recipe is None:
        return ResumeFallback("unsupported_agent", f"{session.agent!r} has no resume command", cwd)
    if session.source != recipe.source:
        detail = f"source {session.source!r} is not herdr's {recipe.product} integration"
        return ResumeFallback("unofficial_source", detail, cwd)
    ref = session.ref
    problem = _invalid(ref.kind, ref.value, recipe)
    argv = recipe.build(ref.value) if problem is None else None
    if argv is None:
        return ResumeFallback("invalid_ref", problem or f"{ref.value!r} has no resume form", cwd)
    if ref.kind == "path" and not exists(ref.value):
        return ResumeFallback("stale_ref", f"session file {ref.value} no longer exists", cwd)
    if which is not None and not which(argv[0]):
        return ResumeFallback("not_installed", f"{argv[0]} is not on PATH", cwd)
    return ResumePlan(recipe.agent, argv, cwd, dedupe_key(session))


def plan_restore(
    panes: Iterable[tuple[K, AgentSession | None, str]],
    *,
    enabled: bool = True,
    exists: Callable[[str], bool],
    which: Callable[[str], bool] | None = None,
    extra: Mapping[str, ResumeRecipe] | None = None,
) -> dict[K, ResumeDecision]:
    """Decide every pane of a restore, in order: the first pane claiming a conversation
    resumes it, later panes with the same reference get a shell (`duplicate_ref`)."""
    out: dict[K, ResumeDecision] = {}
    claimed: set[DedupeKey] = set()
    for key, session, cwd in panes:
        if not enabled:
            detail = "resume_agents_on_restore is off"
            out[key] = ResumeFallback("disabled" if session else "missing_ref", detail, cwd)
            continue
        decision = plan_resume(session, cwd, exists=exists, which=which, extra=extra)
        if isinstance(decision, ResumePlan):
            if decision.key in claimed:
                detail = f"{decision.agent} session {decision.key[3]!r} is resumed by another pane"
                decision = ResumeFallback("duplicate_ref", detail, cwd)
            else:
                claimed.add(decision.key)
        out[key] = decision
    return out


def _invalid(kind: RefKind, value: str, recipe: ResumeRecipe) -> str | None:
    if kind not in recipe.kinds:
        return f"{recipe.product} resumes by id, not by {kind}"
    what = f"session {kind} {_shown(value)}"
    check = session_refs.path_problem if kind == "path" else session_refs.id_problem
    problem = check(value, what)
    if problem is None and kind == "path" and not value.startswith("/"):
        problem = f"{what} is not absolute"
    if problem is None and recipe.strict_id is not None and not recipe.strict_id.fullmatch(value):
        problem = f"{what} does not match {recipe.strict_id.pattern}"
    return problem


def _shown(value: str, limit: int = 60) -> str:
    """A log-safe excerpt (repr escapes control characters)."""
    return repr(value if len(value) <= limit else value[:limit] + "...")


def command_line(argv: Iterable[str]) -> str:
    """Shell-quoted form of `argv`, for typing a resume command into a fresh shell (so
    leaving the agent drops the user into that shell, in the same cwd)."""
    return shlex.join(argv)
