"""The 22 agent kinds herdr knows, their labels, executables, aliases and hook tiers.

Pure data and lookups (detection-spec §1). Enum order matters: it is the order
used wherever "the first agent" is picked.
"""

from __future__ import annotations

import enum
from functools import lru_cache

from msgspec import Struct


class HookTier(enum.Enum):
    """How much authority an agent's official integration has over its state."""

    NONE = "none"
    FULL = "full"  # full-lifecycle: hook states are the only authority
    SIO = "session_identity_only"  # only session reports count
    RNS = "reserved_native_state"  # state reports re-routed to session refs
    SIO_RNS = "session_identity_only+reserved_native_state"


class AgentInfo(Struct, frozen=True):
    """Static facts about one agent kind."""

    label: str
    name: str
    executable: str
    lookup_names: tuple[str, ...]
    manifest_file: str | None
    hook_tier: HookTier
    hook_source: str | None


class Agent(enum.Enum):
    """The agent kinds, in the original's enum order."""

    PI = "pi"
    CLAUDE = "claude"
    CODEX = "codex"
    GEMINI = "gemini"
    CURSOR = "cursor"
    DEVIN = "devin"
    ANTIGRAVITY = "agy"
    CLINE = "cline"
    OMP = "omp"
    MASTRACODE = "mastracode"
    OPENCODE = "opencode"
    GITHUB_COPILOT = "copilot"
    KIMI = "kimi"
    KIRO = "kiro"
    DROID = "droid"
    AMP = "amp"
    GROK = "grok"
    HERMES = "hermes"
    KILO = "kilo"
    QODERCLI = "qodercli"
    QWEN = "qwen"
    MAKI = "maki"

    @property
    def label(self) -> str:
        """The canonical lowercase label (``"claude"``, ``"agy"``, …)."""
        return self.value

    @property
    def info(self) -> AgentInfo:
        return AGENT_INFO[self]

    @property
    def is_builtin(self) -> bool:
        return self.value in _BY_LABEL


def _i(  # noqa: PLR0917 - a compact table row builder
    agent: Agent,
    name: str,
    executable: str,
    names: tuple[str, ...],
    manifest: str | None,
    tier: HookTier,
    source: str | None,
) -> tuple[Agent, AgentInfo]:
    return agent, AgentInfo(agent.value, name, executable, names, manifest, tier, source)


_F, _S, _R, _N = HookTier.FULL, HookTier.SIO, HookTier.RNS, HookTier.NONE

AGENT_INFO: dict[Agent, AgentInfo] = dict(
    [
        _i(Agent.PI, "Pi", "pi", ("pi",), "pi.toml", _F, "herdr:pi"),
        _i(
            Agent.CLAUDE,
            "Claude",
            "claude",
            ("claude", "claude-code"),
            "claude.toml",
            _R,
            "herdr:claude",
        ),
        _i(Agent.CODEX, "Codex", "codex", ("codex",), "codex.toml", _R, "herdr:codex"),
        _i(Agent.GEMINI, "Gemini", "gemini", ("gemini",), "gemini.toml", _N, None),
        _i(
            Agent.CURSOR,
            "Cursor",
            "cursor-agent",
            ("cursor", "cursor-agent"),
            "cursor.toml",
            _R,
            "herdr:cursor",
        ),
        _i(
            Agent.DEVIN,
            "Devin",
            "devin",
            ("devin", "devin-cli", "devin cli"),
            "devin.toml",
            _R,
            "herdr:devin",
        ),
        _i(
            Agent.ANTIGRAVITY,
            "Antigravity",
            "agy",
            ("agy", "antigravity", "antigravity-cli"),
            "antigravity.toml",
            _S,
            "herdr:antigravity_cli",
        ),
        _i(Agent.CLINE, "Cline", "cline", ("cline",), "cline.toml", _N, None),
        _i(Agent.OMP, "Omp", "omp", ("omp",), None, _F, "herdr:omp"),
        _i(
            Agent.MASTRACODE,
            "Mastracode",
            "mastracode",
            ("mastracode", "mastra-code", "mastra code"),
            None,
            _F,
            "herdr:mastracode",
        ),
        _i(
            Agent.OPENCODE,
            "OpenCode",
            "opencode",
            ("opencode", "opencode2", "open-code"),
            "opencode.toml",
            _F,
            "herdr:opencode",
        ),
        _i(
            Agent.GITHUB_COPILOT,
            "GithubCopilot",
            "copilot",
            ("copilot", "github-copilot", "ghcs"),
            "github-copilot.toml",
            _R,
            "herdr:copilot",
        ),
        _i(
            Agent.KIMI,
            "Kimi",
            "kimi",
            ("kimi", "kimi-code", "kimi code"),
            "kimi.toml",
            _F,
            "herdr:kimi",
        ),
        _i(Agent.KIRO, "Kiro", "kiro-cli", ("kiro", "kiro-cli"), "kiro.toml", _N, None),
        _i(Agent.DROID, "Droid", "droid", ("droid",), "droid.toml", _R, "herdr:droid"),
        _i(Agent.AMP, "Amp", "amp", ("amp", "amp-local"), "amp.toml", _N, None),
        _i(Agent.GROK, "Grok", "grok", ("grok", "grok-build"), "grok.toml", _R, "herdr:grok"),
        _i(
            Agent.HERMES,
            "Hermes",
            "hermes",
            ("hermes", "hermes-agent"),
            "hermes.toml",
            _S,
            "herdr:hermes",
        ),
        _i(
            Agent.KILO,
            "Kilo",
            "kilo",
            ("kilo", "kilo-code", "kilo code"),
            "kilo.toml",
            _F,
            "herdr:kilo",
        ),
        _i(
            Agent.QODERCLI,
            "Qodercli",
            "qodercli",
            ("qodercli", "qoderclicn", "qoder", "qodercn"),
            "qodercli.toml",
            _R,
            "herdr:qodercli",
        ),
        _i(
            Agent.QWEN,
            "Qwen",
            "qwen",
            ("qwen", "qwen-code", "qwen code"),
            "qwen.toml",
            HookTier.SIO_RNS,
            "herdr:qwen",
        ),
        _i(Agent.MAKI, "Maki", "maki", ("maki",), "maki.toml", _N, None),
    ]
)

ALL_AGENTS: tuple[Agent, ...] = tuple(Agent)
SCREEN_MANIFEST_AGENTS: tuple[Agent, ...] = tuple(
    a for a in ALL_AGENTS if AGENT_INFO[a].manifest_file is not None
)

_LOOKUP: dict[str, Agent] = {
    name: agent for agent, info in AGENT_INFO.items() for name in info.lookup_names
}
_BY_LABEL: dict[str, Agent] = {a.value: a for a in ALL_AGENTS}
_SUFFIXES = (".exe", ".cmd", ".bat", ".ps1", ".js")

# Unicode White_Space (Rust `char::is_whitespace`); str.strip() also strips U+001C–001F.
WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def rust_trim(text: str) -> str:
    """Strip Unicode White_Space from both ends, as Rust's ``str::trim`` does."""
    return text.strip(WHITE_SPACE)


@lru_cache(maxsize=4096)
def normalize_label(text: str) -> str:
    """Trim, lowercase and strip one executable suffix (``.exe``, ``.cmd``, …).

    Cached: detection asks about the same few process names on every probe."""
    value = rust_trim(text).lower()
    for suffix in _SUFFIXES:
        if value.endswith(suffix):
            return value[: -len(suffix)]
    return value


def parse_agent_label(text: str) -> Agent | None:
    """Lenient lookup: labels, aliases, any case, executable suffixes."""
    name = normalize_label(text)
    return _LOOKUP.get(name) or _USER_LOOKUP.get(name)


def parse_canonical_agent_label(text: str) -> Agent | None:
    """Strict lookup: only the exact canonical label."""
    return _BY_LABEL.get(text) or (_USER_MEMBERS.get(text) if text in _USER_LOOKUP else None)


# (source, label) pairs for each hook tier (detection-spec §1).
FULL_LIFECYCLE_SOURCES: frozenset[tuple[str, str]] = frozenset(
    {
        ("herdr:pi", "pi"),
        ("herdr:omp", "omp"),
        ("herdr:mastracode", "mastracode"),
        ("herdr:opencode", "opencode"),
        ("herdr:kilo", "kilo"),
        ("herdr:kimi", "kimi"),
    }
)
SESSION_IDENTITY_ONLY_SOURCES: frozenset[tuple[str, str]] = frozenset(
    {("herdr:hermes", "hermes"), ("herdr:qwen", "qwen"), ("herdr:antigravity_cli", "agy")}
)
RESERVED_NATIVE_STATE_SOURCES: frozenset[tuple[str, str]] = frozenset(
    {
        ("herdr:claude", "claude"),
        ("herdr:codex", "codex"),
        ("herdr:copilot", "copilot"),
        ("herdr:devin", "devin"),
        ("herdr:droid", "droid"),
        ("herdr:qodercli", "qodercli"),
        ("herdr:qwen", "qwen"),
        ("herdr:cursor", "cursor"),
        ("herdr:grok", "grok"),
    }
)
OFFICIAL_SOURCES: frozenset[tuple[str, str]] = (
    RESERVED_NATIVE_STATE_SOURCES | FULL_LIFECYCLE_SOURCES | SESSION_IDENTITY_ONLY_SOURCES
)


def is_full_lifecycle(source: str, label: str) -> bool:
    return (source, label) in FULL_LIFECYCLE_SOURCES


def is_session_identity_only(source: str, label: str) -> bool:
    return (source, label) in SESSION_IDENTITY_ONLY_SOURCES


def is_reserved_native_state(source: str, label: str) -> bool:
    return (source, label) in RESERVED_NATIVE_STATE_SOURCES


def is_official(source: str, label: str) -> bool:
    return (source, label) in OFFICIAL_SOURCES


# --- user-defined kinds (issue 17) ---------------------------------------------------
# A user kind is an `Agent` pseudo-member made at runtime: every table keyed by Agent
# (AGENT_INFO, manifests, pane state) then works unchanged, while ALL_AGENTS and enum
# iteration stay the 22 built-in kinds. One member per label for the process lifetime,
# so a pane identified before a reload keeps the same object after it.
_USER_MEMBERS: dict[str, Agent] = {}
_USER_LOOKUP: dict[str, Agent] = {}
_USER_ARGV: dict[Agent, tuple[str, ...]] = {}
_USER_COMMAND: dict[Agent, tuple[str, ...]] = {}
BUILTIN_NAMES: frozenset[str] = frozenset(_LOOKUP)


def _user_member(label: str) -> Agent:
    member = _USER_MEMBERS.get(label)
    if member is None:
        member = object.__new__(Agent)
        member.__dict__.update(_name_="USER_" + label.upper().replace("-", "_"), _value_=label)
        _USER_MEMBERS[label] = member
    return member


def set_user_kinds(
    entries: list[tuple[AgentInfo, tuple[str, ...], tuple[str, ...]]],
) -> tuple[Agent, ...]:
    """Replace the user kinds (info, argv patterns, start argv); returns their members."""
    for agent in _USER_ARGV:
        AGENT_INFO.pop(agent, None)
    lookup: dict[str, Agent] = {}
    argv: dict[Agent, tuple[str, ...]] = {}
    commands: dict[Agent, tuple[str, ...]] = {}
    for info, patterns, command in entries:
        agent = _user_member(info.label)
        AGENT_INFO[agent] = info
        argv[agent] = patterns
        commands[agent] = command
        lookup.setdefault(normalize_label(info.label), agent)
    # A label always names its own kind; another shared name goes to the first kind in
    # entry (label) order. user_conflicts reports every such clash.
    for info, _patterns, _command in entries:
        for name in info.lookup_names:
            lookup.setdefault(normalize_label(name), _user_member(info.label))
    _USER_LOOKUP.clear()
    _USER_LOOKUP.update(lookup)
    _USER_ARGV.clear()
    _USER_ARGV.update(argv)
    _USER_COMMAND.clear()
    _USER_COMMAND.update(commands)
    return tuple(argv)


def start_command(agent: Agent) -> tuple[str, ...]:
    """What ``agent start --kind`` runs: a user kind's ``command`` or the executable."""
    return _USER_COMMAND.get(agent) or (AGENT_INFO[agent].executable,)


def user_agents() -> tuple[Agent, ...]:
    """The registered user kinds, in label order."""
    return tuple(_USER_ARGV)


def is_user_agent(agent: Agent) -> bool:
    return agent in _USER_ARGV


def is_user_session_source(source: str, label: str) -> bool:
    """``herdr:<label>`` for a registered user kind: the one channel whose session
    reports it keeps for resume (docs/user-agents.md "Resume")."""
    agent = _USER_MEMBERS.get(label)
    return agent is not None and agent in _USER_ARGV and source == f"herdr:{label}"


def user_agent_for_argv(argv: tuple[str, ...] | list[str] | None) -> Agent | None:
    """The user kind one of whose argv patterns matches an argument (``node …/cli.js``)."""
    if not argv or not _USER_ARGV:
        return None
    from fnmatch import fnmatchcase

    for agent, patterns in _USER_ARGV.items():
        for arg in argv[1:]:
            if any(fnmatchcase(arg, pattern) for pattern in patterns):
                return agent
    return None
