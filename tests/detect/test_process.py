"""Foreground job → agent decisions (detection-spec §2), table-driven."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from herdr.detect.agents import Agent
from herdr.detect.process import (
    AGENT_MISS_CONFIRMATION_ATTEMPTS,
    AgentPresence,
    ForegroundJob,
    ForegroundProcess,
    ForegroundShellAgentAction,
    ProbeResult,
    ProbeScheduleInput,
    ProcessDetectionMode,
    agent_hint_from_environ,
    agent_name_from_path_token,
    choose_child_group,
    foreground_group_changed,
    foreground_shell_agent_action,
    identify_agent_in_job,
    is_generic_runtime_or_shell,
    normalized_process_name,
    parse_process_detection_mode,
    probe_foreground_process_from_jobs,
    process_group_for_change_tracking,
    should_probe_foreground_job,
    should_skip_probe_for_lifecycle_authority,
    wrapped_agent_name_from_runtime_argv,
)


def proc(pid: int, name: str, *argv: str) -> ForegroundProcess:
    return ForegroundProcess(pid=pid, name=name, argv=argv or None, cmdline=" ".join(argv) or None)


def job(pgid: int, *processes: ForegroundProcess) -> ForegroundJob:
    return ForegroundJob(pgid, tuple(processes))


PI_CLI = r"C:\Users\me\AppData\Roaming\npm\node_modules\@earendil-works\pi-coding-agent\dist\cli.js"
PI_BUILD = r"C:\Users\me\AppData\Roaming\npm\node_modules\@earendil-works\scripts\build.js"

# (id, job, expected (agent, name) or None) — the worked examples of §2.7 and the
# original's unit tests.
JOB_CASES: list[tuple[str, ForegroundJob, tuple[Agent, str] | None]] = [
    (
        "node-wrapper-scores-3",
        job(123, proc(1, "node", "node", "/path/to/bin/codex"), proc(2, "bash", "bash")),
        (Agent.CODEX, "codex"),
    ),
    (
        "leader-rule-wins",
        job(42, proc(42, "claude", "claude"), proc(43, "node", "node", "/opt/mcp/bin/codex")),
        (Agent.CLAUDE, "claude"),
    ),
    (
        "non-agent-leader",
        job(42, proc(42, "bash", "bash"), proc(43, "node", "node", "/opt/mcp/bin/codex")),
        (Agent.CODEX, "codex"),
    ),
    (
        "mainthread-node-qwen",
        job(123, proc(123, "MainThread", "node", "/home/user/.fnm/bin/qwen")),
        (Agent.QWEN, "qwen"),
    ),
    (
        "nix-python-hermes",
        job(
            123,
            proc(
                123,
                "python3.12",
                "/nix/store/x/bin/python3.12",
                "/nix/store/x/bin/hermes",
                "--resume",
                "id",
            ),
        ),
        (Agent.HERMES, "hermes"),
    ),
    (
        "nix-wrapped-codex",
        job(
            123,
            proc(1, ".codex-wrapped", "/etc/profiles/per-user/user/bin/codex", "--model", "gpt-5"),
        ),
        (Agent.CODEX, "codex"),
    ),
    (
        "nix-wrapped-claude-code",
        job(123, proc(1, ".claude-code-wrapped", "/nix/store/x/bin/claude-code")),
        (Agent.CLAUDE, "claude"),
    ),
    ("sh-script-pi", job(123, proc(1, "sh", "/bin/sh", "/opt/test-bin/pi")), (Agent.PI, "pi")),
    ("bun-omp", job(123, proc(123, "bun", "bun", "/home/can/.bun/bin/omp")), (Agent.OMP, "omp")),
    ("node-exe-pi-package", job(123, proc(123, "node.exe", "node.exe", PI_CLI)), (Agent.PI, "pi")),
    ("node-exe-other-script", job(123, proc(123, "node.exe", "node.exe", PI_BUILD)), None),
    (
        "cmd-c-codex",
        job(
            123,
            proc(
                1,
                "cmd.exe",
                "cmd.exe",
                "/D",
                "/S",
                "/C",
                r"C:\Users\me\AppData\Roaming\npm\codex.cmd --model gpt-5",
            ),
        ),
        (Agent.CODEX, "codex"),
    ),
    (
        "powershell-file-claude",
        job(
            123,
            proc(
                1,
                "powershell.exe",
                "powershell.exe",
                "-NoProfile",
                "-File",
                r"C:\Users\me\AppData\Roaming\npm\claude.ps1",
            ),
        ),
        (Agent.CLAUDE, "claude"),
    ),
    (
        "opencode2-name-kept",
        job(123, proc(123, "opencode2", "opencode2", "--standalone")),
        (Agent.OPENCODE, "opencode2"),
    ),
    (
        "mainthread-opencode-exe-path",
        job(
            123,
            proc(
                123,
                "MainThread",
                "/home/user/.local/share/pnpm/global/node_modules/opencode-ai/bin/opencode.exe",
            ),
        ),
        (Agent.OPENCODE, "opencode"),
    ),
    (
        "opencode-exe-comm-kept",
        job(
            123,
            proc(
                123,
                "opencode.exe",
                "/home/user/.local/share/pnpm/global/node_modules/opencode-ai/bin/opencode.exe",
            ),
        ),
        (Agent.OPENCODE, "opencode.exe"),
    ),
    (
        "python-c-is-not-the-agent",
        job(123, proc(1, "python3", "python3", "-c", "import time; time.sleep(60)", "/opt/codex")),
        None,
    ),
    (
        "node-e-is-not-the-agent",
        job(123, proc(1, "node", "node", "-e", "setTimeout(() => {}, 60000)", "/opt/codex")),
        None,
    ),
    (
        "bash-c-is-not-the-agent",
        job(123, proc(1, "bash", "bash", "-c", "sleep 60", "/opt/codex")),
        None,
    ),
    (
        "python-script-codex",
        job(123, proc(1, "python3", "python3", "/tmp/codex", "--model", "gpt-5")),
        (Agent.CODEX, "codex"),
    ),
    (
        "claude-code-node-package",
        job(
            7,
            proc(
                7,
                "node",
                "node",
                "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js",
            ),
        ),
        None,
    ),
    ("plain-shell", job(7, proc(7, "bash", "bash")), None),
    ("empty-job", job(7), None),
    ("helper-basename-not-exact", job(7, proc(7, "my-codex-helper", "/opt/my-codex-helper")), None),
]


@pytest.mark.parametrize(
    ("job_", "expected"), [c[1:] for c in JOB_CASES], ids=[c[0] for c in JOB_CASES]
)
def test_identify_agent_in_job(job_: ForegroundJob, expected: tuple[Agent, str] | None) -> None:
    assert identify_agent_in_job(job_) == expected


def test_resolver_reaches_symlinked_argv0() -> None:
    j = job(42, proc(42, "MainThread", "/tmp/agent", "--use-system-ca", "/tmp/index.js"))
    assert identify_agent_in_job(j) is None

    def resolve(path: str) -> str | None:
        return "/opt/cursor-agent" if path == "/tmp/agent" else None

    assert identify_agent_in_job(j, resolve) == (Agent.CURSOR, "cursor")


def test_resolver_reaches_scripts_inside_runtime_wrappers() -> None:
    j = job(7, proc(7, "node", "node", "/tmp/agent.js"))
    assert identify_agent_in_job(j) is None
    assert identify_agent_in_job(
        j, lambda p: "/opt/codex.js" if p == "/tmp/agent.js" else None
    ) == (
        Agent.CODEX,
        "codex",
    )


def test_resolver_not_used_for_single_component_tokens() -> None:
    calls: list[str] = []

    def resolve(path: str) -> str | None:
        calls.append(path)
        return "/opt/codex"

    assert agent_name_from_path_token("agent", resolve) is None
    assert calls == []
    assert agent_name_from_path_token("./agent", resolve) == "codex"


@pytest.mark.parametrize(
    ("runtime", "argv", "expected"),
    [
        ("bash", ["bash", "-lc"], None),
        ("bash", ["bash", "--", "/x/claude"], "claude"),
        ("node", ["node", "--require", "/x/codex", "/x/gemini"], "gemini"),
        ("node", ["node", "--eval=1", "/x/codex"], None),
        ("node", ["node", "-pconsole.log(1)", "/x/codex"], None),
        ("python3", ["python3", "-m", "codex"], None),
        ("python3", ["python3", "-mcodex"], None),
        ("python3", ["python3", "-u", "/x/codex"], "codex"),
        ("python3", ["python3", "-W", "ignore", "/x/kimi"], "kimi"),
        ("python3.12", ["python3.12", "/x/ghcs"], "copilot"),
        ("tmux", ["tmux", "/x/codex"], None),
        ("vim", ["vim", "/x/codex"], None),
        (
            "node",
            [
                r"C:\Users\me\AppData\Local\cursor-agent\versions\2025.1\node.exe",
                r"C:\Users\me\AppData\Local\cursor-agent\versions\2025.1\index.js",
            ],
            "cursor",
        ),
        (
            "node",
            [r"C:\x\cursor-agent\versions\ \node.exe", r"C:\x\cursor-agent\versions\ \index.js"],
            None,
        ),
        ("cmd", ["cmd.exe", "/c", "call codex.cmd"], "codex"),
        ("cmd", ["cmd.exe", "/k", '"C:\\x y\\claude.cmd" --x'], "claude"),
        ("cmd", ["cmd.exe", "codex.cmd"], None),
        ("pwsh", ["pwsh", "-Command", "& 'C:\\x\\gemini.ps1' -y"], "gemini"),
        ("pwsh", ["pwsh", "-ExecutionPolicy", "Bypass", "C:\\x\\codex.ps1"], "codex"),
        ("powershell", ["powershell", "-EncodedCommand", "abc", "codex"], None),
        ("powershell", ["powershell", "-NoLogo", "C:\\x\\amp.ps1"], "amp"),
        ("powershell", ["powershell", "-NoLogo", "/x/amp"], None),  # /… is a switch
    ],
)
def test_wrapped_agent_name_from_runtime_argv(
    runtime: str, argv: list[str], expected: str | None
) -> None:
    assert wrapped_agent_name_from_runtime_argv(runtime, argv) == expected


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("/nix/store/example/bin/ghcs", "copilot"),
        ("/tmp/my-codex-helper", None),
        ("'/x/claude-code'", "claude"),
        ("-claude", None),
        ("", None),
        ("/x/node_modules/@qwen-code/qwen-code/dist/index.js", "qwen"),
        ("/x/node_modules/mastracode/dist/cli.js", "mastracode"),
        ("/x/NODE_MODULES/MastraCode/dist/cli.JS", "mastracode"),
    ],
)
def test_agent_name_from_path_token(token: str, expected: str | None) -> None:
    assert agent_name_from_path_token(token) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("python", True),
        ("python3", True),
        ("python3.12", True),
        ("python3.", False),
        ("python3.x", False),
        ("pythonista", False),
        ("/usr/bin/bash", True),
        ("node.exe", True),
        ("PWSH", True),
        ("claude", False),
    ],
)
def test_is_generic_runtime_or_shell(name: str, expected: bool) -> None:
    assert is_generic_runtime_or_shell(name) is expected


def test_normalized_process_name_prefers_argv0() -> None:
    p = ForegroundProcess(pid=1, name="MainThread", argv0="pi", argv=("node", "/x/y.js"))
    assert normalized_process_name(p) == "pi"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        (b"PATH=/bin\0HERDR_AGENT=claude\0TERM=xterm\0", Agent.CLAUDE),
        (b"HERDR_AGENT=codex", Agent.CODEX),
        (b"HERDR_AGENT= Kimi Code \0", Agent.KIMI),
        (b"PATH=/bin\0TERM=xterm\0", None),
        (b"HERDR_AGENT=not-an-agent\0HERDR_AGENT=claude\0", None),
        (b"HERDR_AGENT=\xff\0", None),
        (b"NOT_HERDR_AGENT=claude\0", None),
        (b"", None),
    ],
)
def test_agent_hint_from_environ(environ: bytes, expected: Agent | None) -> None:
    assert agent_hint_from_environ(environ) is expected


# --- probe order (§2.3) -----------------------------------------------------

Hints = dict[int, Agent]


def run_probe(
    leader: ForegroundJob | None, full: ForegroundJob | None, hints: Hints, shell_pid: int = 10
) -> tuple[ProbeResult, int]:
    calls = 0

    def full_job() -> ForegroundJob | None:
        nonlocal calls
        calls += 1
        return full

    hint: Callable[[int], Agent | None] = hints.get
    observed = leader.process_group_id if leader else (full.process_group_id if full else None)
    return probe_foreground_process_from_jobs(shell_pid, observed, leader, full_job, hint), calls


CLAUDE_LEADER = job(50, proc(50, "claude", "claude"))
NODE_LEADER = job(50, proc(50, "node", "node"))
FULL = job(
    50,
    proc(50, "node", "node"),
    proc(51, "bash", "bash"),
    proc(52, "node", "node", "/x/codex"),
)


@pytest.mark.parametrize(
    ("leader", "full", "hints", "expected", "full_calls"),
    [
        pytest.param(
            CLAUDE_LEADER,
            FULL,
            {},
            ProbeResult(Agent.CLAUDE, "claude", 50, False),
            0,
            id="leader-name",
        ),
        pytest.param(
            CLAUDE_LEADER,
            FULL,
            {50: Agent.PI},
            ProbeResult(Agent.PI, "pi", 50, False),
            0,
            id="leader-hint-beats-name",
        ),
        pytest.param(
            NODE_LEADER,
            FULL,
            {51: Agent.GEMINI},
            ProbeResult(Agent.GEMINI, "gemini", 50, False),
            1,
            id="non-leader-hint",
        ),
        pytest.param(
            NODE_LEADER,
            FULL,
            {},
            ProbeResult(Agent.CODEX, "codex", 50, False),
            1,
            id="full-job-identify",
        ),
        pytest.param(
            None,
            job(50, proc(50, "claude", "claude"), proc(51, "x", "x")),
            {51: Agent.CODEX},
            ProbeResult(Agent.CLAUDE, "claude", 50, False),
            1,
            id="named-leader-beats-member-hint",
        ),
        pytest.param(
            None,
            job(10, proc(10, "bash", "bash")),
            {},
            ProbeResult(None, None, 10, True),
            1,
            id="shell-in-foreground",
        ),
        pytest.param(None, None, {}, ProbeResult(None, None, None, False), 1, id="no-job"),
    ],
)
def test_probe_order(
    leader: ForegroundJob | None,
    full: ForegroundJob | None,
    hints: Hints,
    expected: ProbeResult,
    full_calls: int,
) -> None:
    result, calls = run_probe(leader, full, hints)
    assert result == expected
    assert calls == full_calls


def test_probe_without_job_reports_observed_pgid() -> None:
    result = probe_foreground_process_from_jobs(10, 77, None, lambda: None, lambda _pid: None)
    assert result == ProbeResult(None, None, 77, False)


# --- child-groups mode (§2.2) -------------------------------------------------


@pytest.mark.parametrize(
    ("value", "mode", "warns"),
    [
        (None, ProcessDetectionMode.NATIVE, False),
        ("", ProcessDetectionMode.NATIVE, False),
        ("native", ProcessDetectionMode.NATIVE, False),
        ("child-groups", ProcessDetectionMode.CHILD_GROUPS, False),
        ("Child-Groups", ProcessDetectionMode.NATIVE, True),
        ("yes", ProcessDetectionMode.NATIVE, True),
    ],
)
def test_parse_process_detection_mode(
    value: str | None, mode: ProcessDetectionMode, warns: bool
) -> None:
    parsed, warning = parse_process_detection_mode(value)
    assert parsed is mode
    assert (warning is not None) is warns


@pytest.mark.parametrize(
    ("shell_pgrp", "children", "expected"),
    [
        (100, [], 100),
        (100, [100, 100], 100),
        (100, [120, 150, 130], 150),
        (100, [0, -1, 100], 100),
        (0, [120], None),
        (100, [120] * 65, None),
        (100, [120] * 64, 120),
    ],
)
def test_choose_child_group(shell_pgrp: int, children: list[int], expected: int | None) -> None:
    assert choose_child_group(shell_pgrp, children) == expected


# --- scheduling (§2.9) and presence (§2.8) --------------------------------------


def sched(**kw: object) -> ProbeScheduleInput:
    base: dict[str, object] = {
        "current_agent": None,
        "foreground_pgid": 50,
        "last_foreground_pgid": 50,
        "has_process_probe": True,
        "elapsed_since_process_check": 0.0,
    }
    base.update(kw)
    return ProbeScheduleInput(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("inp", "expected"),
    [
        pytest.param(sched(has_process_probe=False), True, id="never-probed"),
        pytest.param(sched(), False, id="unchanged-unidentified"),
        pytest.param(sched(foreground_pgid=51), True, id="group-changed"),
        pytest.param(
            sched(foreground_pgid=None, last_foreground_pgid=None), False, id="no-group-yet"
        ),
        pytest.param(
            sched(
                foreground_pgid=None, last_foreground_pgid=None, elapsed_since_process_check=30.0
            ),
            True,
            id="missing-group-30s",
        ),
        pytest.param(sched(pending_foreground_shell_clear=True), True, id="shell-clear-pending"),
        pytest.param(sched(pending_restore_probe=True), True, id="restore-pending"),
        pytest.param(
            sched(current_agent=Agent.CLAUDE, elapsed_since_process_check=4.9),
            False,
            id="identified-fresh",
        ),
        pytest.param(
            sched(current_agent=Agent.CLAUDE, elapsed_since_process_check=5.0),
            True,
            id="identified-5s",
        ),
        pytest.param(
            sched(acquisition_age=1.0, elapsed_since_process_check=0.5), True, id="acq-fast"
        ),
        pytest.param(
            sched(acquisition_age=1.0, elapsed_since_process_check=0.4),
            False,
            id="acq-fast-too-soon",
        ),
        pytest.param(
            sched(acquisition_age=3.0, elapsed_since_process_check=1.0),
            False,
            id="acq-slow-too-soon",
        ),
        pytest.param(
            sched(acquisition_age=3.0, elapsed_since_process_check=2.0), True, id="acq-slow"
        ),
        pytest.param(
            sched(acquisition_age=9.0, elapsed_since_process_check=2.0), False, id="acq-expired"
        ),
        pytest.param(
            sched(suppressed_agent=Agent.CODEX, elapsed_since_process_check=99.0),
            False,
            id="release-suppressed",
        ),
        pytest.param(
            sched(suppressed_agent=Agent.CODEX, foreground_pgid=51),
            True,
            id="release-group-changed",
        ),
    ],
)
def test_should_probe_foreground_job(inp: ProbeScheduleInput, expected: bool) -> None:
    assert should_probe_foreground_job(inp) is expected


def test_lifecycle_authority_skip() -> None:
    assert should_skip_probe_for_lifecycle_authority(True, sched(current_agent=Agent.PI))
    assert not should_skip_probe_for_lifecycle_authority(False, sched())
    assert not should_skip_probe_for_lifecycle_authority(True, sched(foreground_pgid=51))
    assert not should_skip_probe_for_lifecycle_authority(True, sched(foreground_pgid=None))
    assert not should_skip_probe_for_lifecycle_authority(True, sched(has_process_probe=False))


@pytest.mark.parametrize(
    ("now", "last", "changed"),
    [(1, 1, False), (1, 2, True), (None, 2, True), (1, None, True), (None, None, False)],
)
def test_foreground_group_changed(now: int | None, last: int | None, changed: bool) -> None:
    assert foreground_group_changed(now, last) is changed


def test_process_group_for_change_tracking() -> None:
    assert process_group_for_change_tracking(None, 5) is None
    assert process_group_for_change_tracking(4, 5) == 5
    assert process_group_for_change_tracking(4, None) == 4


A = ForegroundShellAgentAction


@pytest.mark.parametrize(
    ("prev", "found", "is_shell", "reported", "expected"),
    [
        (None, None, True, False, A.OBSERVE_PROBE),
        (Agent.CODEX, None, True, False, A.REPORT_PROCESS_EXIT),
        (Agent.CODEX, None, True, True, A.CLEAR_AGENT),
        (Agent.CODEX, Agent.CODEX, True, True, A.REPORT_REPLACEMENT_PROCESS),
        (Agent.CODEX, Agent.CLAUDE, True, True, A.OBSERVE_PROBE),
        (Agent.CODEX, Agent.CLAUDE, False, False, A.OBSERVE_PROBE),
        (Agent.CODEX, None, False, False, A.OBSERVE_PROBE),
    ],
)
def test_foreground_shell_agent_action(
    prev: Agent | None, found: Agent | None, is_shell: bool, reported: bool, expected: A
) -> None:
    assert foreground_shell_agent_action(prev, found, is_shell, reported) is expected


def test_presence_clears_after_consecutive_misses() -> None:
    presence = AgentPresence()
    assert not presence.observe(None)
    assert presence.observe(Agent.CLAUDE)
    assert not presence.observe(Agent.CLAUDE)
    for _ in range(AGENT_MISS_CONFIRMATION_ATTEMPTS - 1):
        assert not presence.observe(None)
    assert presence.observe(Agent.CLAUDE) is False  # a hit resets the miss counter
    for _ in range(AGENT_MISS_CONFIRMATION_ATTEMPTS - 1):
        assert not presence.observe(None)
    assert presence.current is Agent.CLAUDE
    assert presence.observe(None)
    assert presence.current is None


def test_presence_switches_agent_immediately() -> None:
    presence = AgentPresence(Agent.CLAUDE)
    assert presence.observe(Agent.CODEX)
    assert presence.current is Agent.CODEX
    assert presence.clear()
    assert not presence.clear()


SHELL_ALONE = job(10, proc(10, "bash", "bash"))


@pytest.mark.parametrize(
    ("leader", "full", "expected", "asked"),
    [
        pytest.param(
            SHELL_ALONE, SHELL_ALONE, ProbeResult(None, None, 10, True), {10: 1}, id="shell-alone"
        ),
        pytest.param(
            NODE_LEADER, NODE_LEADER, ProbeResult(None, None, 50, False), {50: 1}, id="leader-alone"
        ),
        pytest.param(
            NODE_LEADER,
            job(50, proc(50, "node", "node"), proc(51, "bash", "bash")),
            ProbeResult(None, None, 50, False),
            {50: 2, 51: 1},
            id="leader-and-member",
        ),
    ],
)
def test_a_group_that_is_its_leader_is_not_asked_twice(
    leader: ForegroundJob, full: ForegroundJob, expected: ProbeResult, asked: dict[int, int]
) -> None:
    """When the full walk finds only the leader step 1 already read, steps a–d would
    repeat step 1's questions: the answer is step 1's (nothing), asked once."""
    counts: dict[int, int] = {}

    def hint(pid: int) -> Agent | None:
        counts[pid] = counts.get(pid, 0) + 1
        return None

    shell_pid = 10
    result = probe_foreground_process_from_jobs(
        shell_pid, leader.process_group_id, leader, lambda: full, hint
    )
    assert result == expected
    assert counts == asked
