"""Native agent resume: every row of the table, and every reason to fall back to a shell."""

from __future__ import annotations

import shlex
from collections.abc import Callable

import pytest

from herdr.detect.agents import AGENT_INFO, Agent
from herdr.persist import resume
from herdr.persist.resume import (
    RECIPES,
    ResumeFallback,
    ResumePlan,
    command_line,
    dedupe_key,
    plan_restore,
    plan_resume,
)
from herdr.runtime.agent_state import AgentSession, SessionRef

CWD = "/src/app"
SESSION_FILE = "/home/u/.pi/sessions/2026-01-01.jsonl"
FLAG = "--dangerously-bypass-approvals-and-sandbox"


def everything_exists(path: str) -> bool:
    return True


def nothing_exists(path: str) -> bool:
    return False


def ref(source: str, agent: str, value: str, kind: str = "id") -> AgentSession:
    assert kind in ("id", "path")
    return AgentSession(source, agent, SessionRef("path" if kind == "path" else "id", value))


# (source, agent, kind, value, argv) — herdr-spec §4.2 plus Letta Code from the seeds.
TABLE = [
    ("herdr:pi", "pi", "path", SESSION_FILE, ("pi", "--session", SESSION_FILE)),
    ("herdr:pi", "pi", "id", "pi-1", ("pi", "--session", "pi-1")),
    ("herdr:omp", "omp", "path", SESSION_FILE, ("omp", f"--resume={SESSION_FILE}")),
    ("herdr:omp", "omp", "id", "omp-1", ("omp", "--resume=omp-1")),
    ("herdr:claude", "claude", "id", "c-1", ("claude", "--resume=c-1")),
    ("herdr:codex", "codex", "id", "x-1", ("codex", "resume", "--", "x-1")),
    ("herdr:copilot", "copilot", "id", "g-1", ("copilot", "--resume=g-1")),
    ("herdr:devin", "devin", "id", "d-1", ("devin", "--resume", "d-1")),
    ("herdr:droid", "droid", "id", "r-1", ("droid", "--resume", "r-1")),
    ("herdr:kimi", "kimi", "id", "k-1", ("kimi", "--session=k-1")),
    ("herdr:qodercli", "qodercli", "id", "q-1", ("qodercli", "--resume", "q-1")),
    ("herdr:qwen", "qwen", "id", "w-1", ("qwen", "--resume=w-1")),
    ("herdr:cursor", "cursor", "id", "u-1", ("cursor-agent", "--resume", "u-1")),
    ("herdr:grok", "grok", "id", "o-1", ("grok", "--resume", "o-1")),
    ("herdr:opencode", "opencode", "id", "n-1", ("opencode", "--session=n-1")),
    ("herdr:kilo", "kilo", "id", "l-1", ("kilo", "--session=l-1")),
    ("herdr:hermes", "hermes", "id", "h-1", ("hermes", "--resume", "h-1")),
    ("herdr:mastracode", "mastracode", "id", "m-1", ("mastracode", "--thread", "m-1")),
    ("herdr:antigravity_cli", "agy", "id", "a-1", ("agy", "--conversation", "a-1")),
    ("herdr:letta", "letta", "id", "conv-1", ("letta", "--conversation", "conv-1")),
    (
        "herdr:letta",
        "letta",
        "id",
        "default:agent-9",
        ("letta", "--conversation", "default", "--agent", "agent-9"),
    ),
]


@pytest.mark.parametrize(
    ("source", "agent", "kind", "value", "argv"),
    TABLE,
    ids=[f"{t[1]}-{t[2]}-{t[3][:10]}" for t in TABLE],
)
def test_resume_command_for_every_agent(
    source: str, agent: str, kind: str, value: str, argv: tuple[str, ...]
) -> None:
    session = ref(source, agent, value, kind)
    decision = plan_resume(session, CWD, exists=everything_exists)
    assert decision == ResumePlan(agent, argv, CWD, dedupe_key(session))
    assert dedupe_key(session) == (source, agent, kind, value)


def test_table_has_the_seeds_eighteen_agents() -> None:
    assert len(RECIPES) == 18
    assert {row[1] for row in TABLE} == set(RECIPES)


def test_sources_agree_with_the_agent_table() -> None:
    for agent in Agent:
        recipe = RECIPES.get(agent.label)
        if recipe is not None:
            assert recipe.source == AGENT_INFO[agent].hook_source, agent


def test_agents_without_resume_are_exactly_the_screen_only_ones() -> None:
    assert {a.label for a in Agent} - set(RECIPES) == {"gemini", "cline", "kiro", "amp", "maki"}


def test_executable_is_what_a_path_check_looks_for() -> None:
    assert RECIPES["cursor"].executable == "cursor-agent"
    assert RECIPES["omp"].executable == "omp"


FALLBACKS = [
    ("missing", None, everything_exists, "missing_ref"),
    ("gemini", ref("herdr:gemini", "gemini", "s"), everything_exists, "unsupported_agent"),
    ("unknown-agent", ref("custom:x", "x", "s"), everything_exists, "unsupported_agent"),
    ("custom-source", ref("custom:claude", "claude", "s"), everything_exists, "unofficial_source"),
    ("wrong-official", ref("herdr:codex", "claude", "s"), everything_exists, "unofficial_source"),
    ("empty-id", ref("herdr:claude", "claude", ""), everything_exists, "invalid_ref"),
    ("long-id", ref("herdr:claude", "claude", "x" * 513), everything_exists, "invalid_ref"),
    ("newline-id", ref("herdr:claude", "claude", "a\nb"), everything_exists, "invalid_ref"),
    ("nul-id", ref("herdr:codex", "codex", "a\x00b"), everything_exists, "invalid_ref"),
    ("esc-id", ref("herdr:codex", "codex", "a\x1b[2Jb"), everything_exists, "invalid_ref"),
    ("flag-id", ref("herdr:codex", "codex", FLAG), everything_exists, "invalid_ref"),
    ("space-id", ref("herdr:codex", "codex", "a --yolo"), everything_exists, "invalid_ref"),
    ("tab-id", ref("herdr:claude", "claude", "a\tb"), everything_exists, "invalid_ref"),
    ("nbsp-id", ref("herdr:claude", "claude", "a\u00a0b"), everything_exists, "invalid_ref"),
    ("bidi-id", ref("herdr:claude", "claude", "a\u202eb"), everything_exists, "invalid_ref"),
    ("flag-path", ref("herdr:pi", "pi", "--help", "path"), everything_exists, "invalid_ref"),
    ("newline-path", ref("herdr:pi", "pi", "/a\nb", "path"), everything_exists, "invalid_ref"),
    (
        "path-for-id-agent",
        ref("herdr:claude", "claude", SESSION_FILE, "path"),
        everything_exists,
        "invalid_ref",
    ),
    ("relative-path", ref("herdr:pi", "pi", "s.jsonl", "path"), everything_exists, "invalid_ref"),
    (
        "long-path",
        ref("herdr:pi", "pi", "/" + "p" * 4096, "path"),
        everything_exists,
        "invalid_ref",
    ),
    (
        "letta-default-empty",
        ref("herdr:letta", "letta", "default:"),
        everything_exists,
        "invalid_ref",
    ),
    ("stale-pi-path", ref("herdr:pi", "pi", SESSION_FILE, "path"), nothing_exists, "stale_ref"),
    ("stale-omp-path", ref("herdr:omp", "omp", SESSION_FILE, "path"), nothing_exists, "stale_ref"),
]


@pytest.mark.parametrize(
    ("session", "exists", "reason"),
    [(s, e, r) for _, s, e, r in FALLBACKS],
    ids=[f[0] for f in FALLBACKS],
)
def test_fallback_reasons(
    session: AgentSession | None, exists: Callable[[str], bool], reason: str
) -> None:
    decision = plan_resume(session, CWD, exists=exists)
    assert isinstance(decision, ResumeFallback)
    assert decision.reason == reason
    assert decision.cwd == CWD
    assert decision.detail


def test_id_refs_are_never_checked_on_disk() -> None:
    checked: list[str] = []

    def exists(path: str) -> bool:
        checked.append(path)
        return False

    assert isinstance(
        plan_resume(ref("herdr:claude", "claude", "c-1"), CWD, exists=exists), ResumePlan
    )
    assert checked == []


def test_missing_executable_falls_back_when_a_path_check_is_given() -> None:
    session = ref("herdr:cursor", "cursor", "u-1")
    seen: list[str] = []

    def which(name: str) -> bool:
        seen.append(name)
        return False

    decision = plan_resume(session, CWD, exists=everything_exists, which=which)
    assert isinstance(decision, ResumeFallback) and decision.reason == "not_installed"
    assert seen == ["cursor-agent"]


def test_values_are_argv_items_never_shell_text() -> None:
    nasty = "abc;rm${IFS}-rf${IFS}/;$(reboot)'q'"
    decision = plan_resume(ref("herdr:codex", "codex", nasty), CWD, exists=everything_exists)
    assert isinstance(decision, ResumePlan)
    assert decision.argv == ("codex", "resume", "--", nasty)
    line = command_line(decision.argv)
    assert line == "codex resume -- 'abc;rm${IFS}-rf${IFS}/;$(reboot)'\"'\"'q'\"'\"''"
    assert shlex.split(line) == list(decision.argv)


@pytest.mark.parametrize("agent", sorted(RECIPES))
@pytest.mark.parametrize("value", [FLAG, "-c", "-"], ids=["long-flag", "short-flag", "dash"])
def test_no_stored_value_becomes_an_option(agent: str, value: str) -> None:
    """Checked by the plan (invalid_ref) and, underneath, refused by every builder."""
    recipe = RECIPES[agent]
    assert recipe.build(value) is None
    decision = plan_resume(ref(recipe.source, agent, value), CWD, exists=everything_exists)
    assert isinstance(decision, ResumeFallback) and decision.reason == "invalid_ref"
    assert "'-'" in decision.detail


@pytest.mark.parametrize("agent", sorted(RECIPES))
def test_the_value_is_one_item_bound_to_its_flag(agent: str) -> None:
    """``--flag=value``, ``--flag value`` or codex's ``-- value``: never loose."""
    argv = RECIPES[agent].build("v-1")
    assert argv is not None
    holders = [i for i, item in enumerate(argv) if "v-1" in item]
    assert len(holders) == 1
    at = holders[0]
    if argv[at] != "v-1":
        assert argv[at].startswith("--") and argv[at].endswith("=v-1")
    else:
        assert argv[at - 1].startswith("--")


def test_letta_agent_id_cannot_be_a_flag() -> None:
    assert RECIPES["letta"].build("default:--yolo") is None
    decision = plan_resume(ref("herdr:letta", "letta", "default:-x"), CWD, exists=everything_exists)
    assert isinstance(decision, ResumeFallback) and decision.reason == "invalid_ref"


def test_duplicate_refs_resume_only_in_the_first_pane() -> None:
    same = ref("herdr:claude", "claude", "c-1")
    panes = [
        ("w1:p1", same, "/a"),
        ("w1:p2", ref("herdr:claude", "claude", "c-2"), "/b"),
        ("w2:p1", same, "/c"),
        ("w2:p2", None, "/d"),
    ]
    decisions = plan_restore(panes, exists=everything_exists)
    assert list(decisions) == ["w1:p1", "w1:p2", "w2:p1", "w2:p2"]
    assert isinstance(decisions["w1:p1"], ResumePlan)
    assert isinstance(decisions["w1:p2"], ResumePlan)
    dup = decisions["w2:p1"]
    assert isinstance(dup, ResumeFallback) and dup.reason == "duplicate_ref" and dup.cwd == "/c"
    missing = decisions["w2:p2"]
    assert isinstance(missing, ResumeFallback) and missing.reason == "missing_ref"


def test_a_fallback_does_not_claim_its_reference() -> None:
    path = ref("herdr:pi", "pi", SESSION_FILE, "path")
    calls = iter([False, True])  # stale for the first pane, back for the second

    decisions = plan_restore([("a", path, "/"), ("b", path, "/")], exists=lambda _: next(calls))
    assert isinstance(decisions["a"], ResumeFallback) and decisions["a"].reason == "stale_ref"
    assert isinstance(decisions["b"], ResumePlan)


def test_disabled_resume_falls_back_everywhere() -> None:
    panes = [("p1", ref("herdr:claude", "claude", "c-1"), "/a"), ("p2", None, "/b")]
    decisions = plan_restore(panes, enabled=False, exists=everything_exists)
    reasons = {k: d.reason for k, d in decisions.items() if isinstance(d, ResumeFallback)}
    assert reasons == {"p1": "disabled", "p2": "missing_ref"}


# --------------------------------------------------------------------------- user kinds

ZORK = {"zork": resume.user_recipe("zork", "Zork", ("zork", "--session={session}", "--tui"))}


@pytest.mark.parametrize(
    ("source", "kind", "value", "expected"),
    [
        ("herdr:zork", "id", "zs-1.a:b@c", ("zork", "--session=zs-1.a:b@c", "--tui")),
        ("herdr:zork", "id", "a;b", "invalid_ref"),
        ("herdr:zork", "id", "a b", "invalid_ref"),
        ("herdr:zork", "id", "-x", "invalid_ref"),
        ("herdr:zork", "id", "$(id)", "invalid_ref"),
        ("herdr:zork", "id", "x" * 129, "invalid_ref"),
        ("herdr:zork", "path", "/tmp/z.jsonl", "invalid_ref"),
        ("custom:zork", "id", "zs-1", "unofficial_source"),
        ("herdr:crush", "id", "zs-1", "unofficial_source"),
    ],
    ids=[
        "good",
        "semicolon",
        "space",
        "dash",
        "substitution",
        "too-long",
        "path",
        "custom-source",
        "other-kinds-source",
    ],
)
def test_user_kind_recipe(source: str, kind: str, value: str, expected: object) -> None:
    ref = SessionRef("path" if kind == "path" else "id", value)
    decision = resume.plan_resume(
        AgentSession(source, "zork", ref), "/w", exists=lambda _p: True, extra=ZORK
    )
    if isinstance(expected, tuple):
        assert isinstance(decision, resume.ResumePlan) and decision.argv == expected
    else:
        assert isinstance(decision, resume.ResumeFallback) and decision.reason == expected


def test_user_kind_without_recipe_is_unsupported() -> None:
    session = AgentSession("herdr:zork", "zork", SessionRef("id", "zs-1"))
    decision = resume.plan_resume(session, "/w", exists=lambda _p: True)
    assert isinstance(decision, resume.ResumeFallback) and decision.reason == "unsupported_agent"
