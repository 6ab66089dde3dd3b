"""Which agent owns a pane's foreground job (detection-spec §2).

PURE: every decision here works on plain values read elsewhere
(``herdr.terminal.procfs`` does the /proc I/O). The one place the original
touches the file system — resolving a symlinked path token — is an injected
``resolve`` callable, so tests stay hermetic and the server passes a real one.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from functools import lru_cache

from msgspec import Struct

from herdr.detect.agents import (
    Agent,
    normalize_label,
    parse_agent_label,
    rust_trim,
    user_agent_for_argv,
)

# resolve(path) -> canonical path of an existing file, or None.
Resolver = Callable[[str], "str | None"]
HintReader = Callable[[int], "Agent | None"]


class ForegroundProcess(Struct, frozen=True):
    """One member of the foreground job, as the platform layer saw it."""

    pid: int
    name: str  # kernel comm (≤ 15 chars on Linux)
    argv0: str | None = None  # macOS only: basename of argv[0]
    argv: tuple[str, ...] | None = None
    cmdline: str | None = None


class ForegroundJob(Struct, frozen=True):
    """The processes of one process group, sorted by pid."""

    process_group_id: int
    processes: tuple[ForegroundProcess, ...]


class ProbeResult(Struct, frozen=True):
    """What one foreground probe found (§2.3)."""

    agent: Agent | None
    process_name: str | None
    process_group_id: int | None
    foreground_is_pane_shell: bool


# ---------------------------------------------------------------------------
# Names and runtimes (§2.4, §2.5)
# ---------------------------------------------------------------------------

_GENERIC = frozenset(
    {"sh", "bash", "zsh", "fish", "tmux", "node", "bun", "cmd", "powershell", "pwsh"}
)


def path_basename(path: str) -> str:
    """Last non-empty component split on ``/`` or ``\\`` (the path itself if none)."""
    for part in reversed(path.replace("\\", "/").split("/")):
        if part:
            return part
    return path


def is_python_runtime(name: str) -> bool:
    """``python``, ``python3``, ``python3.12`` — dotted all-digit versions only."""
    if name == "python":
        return True
    if not name.startswith("python"):
        return False
    version = name[len("python") :]
    return bool(version) and all(p and p.isascii() and p.isdigit() for p in version.split("."))


def is_generic_runtime_or_shell(name: str) -> bool:
    """A shell or language runtime whose comm says nothing about the agent."""
    base = normalize_label(path_basename(name))
    return is_python_runtime(base) or base in _GENERIC


def _runtime_name(runtime: str) -> str:
    return normalize_label(path_basename(runtime))


def normalized_process_name(process: ForegroundProcess, resolve: Resolver | None = None) -> str:
    """The name to identify ``process`` by, looking through wrappers (§2.5)."""
    effective = process.argv0 if process.argv0 is not None else process.name
    lower_effective = effective.lower()
    user = user_agent_for_argv(process.argv)
    if user is not None and is_generic_runtime_or_shell(lower_effective):
        return user.label
    if is_generic_runtime_or_shell(lower_effective):
        wrapped = wrapped_agent_name_from_runtime_argv(lower_effective, process.argv, resolve)
        if wrapped is not None:
            return wrapped
    if parse_agent_label(effective) is not None:
        return effective
    argv = process.argv
    if argv and _runtime_name(argv[0]) in ("node", "bun"):
        wrapped = wrapped_agent_name_from_runtime_argv(argv[0], argv, resolve)
        if wrapped is not None and parse_agent_label(wrapped) is Agent.QWEN:
            return wrapped
    if argv:
        found = agent_name_from_path_token(argv[0], resolve)
        if found is not None:
            return found
    first = (process.cmdline or "").split()
    if first:
        found = agent_name_from_path_token(first[0], resolve)
        if found is not None:
            return found
    return effective


def _process_priority(process: ForegroundProcess, normalized: str) -> int:
    lower = normalized.lower()
    if lower != process.name.lower():
        return 3  # identified through argv / a wrapper
    if not is_generic_runtime_or_shell(lower):
        return 2
    return 1


def identify_agent_in_job(
    job: ForegroundJob, resolve: Resolver | None = None
) -> tuple[Agent, str] | None:
    """The job's agent and the name it was found under (§2.4)."""
    for process in job.processes:
        if process.pid == job.process_group_id:
            name = normalized_process_name(process, resolve)
            agent = parse_agent_label(name)
            if agent is not None:
                return agent, name
            break
    best: tuple[int, Agent, str] | None = None
    for process in job.processes:
        name = normalized_process_name(process, resolve)
        agent = parse_agent_label(name)
        if agent is None:
            continue
        score = _process_priority(process, name)
        if best is None or score > best[0]:
            best = (score, agent, name)
    return None if best is None else (best[1], best[2])


# ---------------------------------------------------------------------------
# Wrapper argv inspection (§2.7)
# ---------------------------------------------------------------------------

_NODE_EVAL = ("-e", "--eval", "-p", "--print")
_VALUE_OPTIONS = frozenset(
    {
        "-r",
        "--require",
        "--loader",
        "--import",
        "--experimental-loader",
        "--inspect-port",
        "-W",
        "-X",
        "-S",
        "-L",
        "-o",
    }
)
_CMD_SWITCHES = frozenset(
    {"/d", "/s", "/q", "/a", "/u", "/e:on", "/e:off", "/f:on", "/f:off", "/v:on", "/v:off"}
)
_PS_VALUE_OPTIONS = frozenset(
    {
        "-configurationname",
        "-executionpolicy",
        "-outputformat",
        "-psconsolefile",
        "-version",
        "-windowstyle",
        "-workingdirectory",
    }
)
_PACKAGE_WINDOWS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli"), "pi"),
    (("node_modules", "@qwen-code", "qwen-code", "dist", "index"), "qwen"),
    (("node_modules", "mastracode", "dist", "cli"), "mastracode"),
)


def wrapped_agent_name_from_runtime_argv(
    runtime: str, argv: Sequence[str] | None, resolve: Resolver | None = None
) -> str | None:
    """The agent a runtime/shell is running as its script, if any (§2.7)."""
    if argv is None:
        return None
    name = _runtime_name(runtime)
    if name == "node":
        return _bundled_cursor_node(argv) or _script_arg(argv, _NODE_EVAL, (), resolve)
    if name == "bun":
        return _script_arg(argv, _NODE_EVAL, (), resolve)
    if is_python_runtime(name):
        return _script_arg(argv, ("-c",), ("-m",), resolve)
    if name in ("sh", "bash", "zsh", "fish"):
        return _script_arg(argv, ("-c",), (), resolve)
    if name == "cmd":
        return _windows_cmd(argv, resolve)
    if name in ("powershell", "pwsh"):
        return _powershell(argv, resolve)
    return None


def _flag_matches(arg: str, flags: Sequence[str]) -> bool:
    for flag in flags:
        if arg == flag:
            return True
        if not flag.startswith("--") and arg.startswith(flag) and len(arg) > len(flag):
            return True  # short flag with attached payload: -cprint(1)
        if flag.startswith("--") and arg.startswith(flag + "="):
            return True
    return False


def _script_arg(
    argv: Sequence[str],
    eval_flags: Sequence[str],
    module_flags: Sequence[str],
    resolve: Resolver | None,
) -> str | None:
    args = iter(argv[1:])
    for arg in args:
        if arg == "--":
            token = next(args, None)
            return None if token is None else agent_name_from_path_token(token, resolve)
        if _flag_matches(arg, eval_flags) or _flag_matches(arg, module_flags):
            return None  # inline code / -m module is never the agent
        if arg.startswith("-"):
            if arg in _VALUE_OPTIONS:
                next(args, None)
            continue
        return agent_name_from_path_token(arg, resolve)
    return None


def _parent_and_basename(path: str) -> tuple[str, str] | None:
    split = max(path.rfind("/"), path.rfind("\\"))
    if split < 0:
        return None
    parent = path[:split].rstrip("/\\")
    base = path[split + 1 :]
    return (parent, base) if parent and base else None


def _bundled_cursor_node(argv: Sequence[str]) -> str | None:
    if len(argv) < 2:
        return None
    runtime = _parent_and_basename(argv[0])
    script = _parent_and_basename(argv[1])
    if runtime is None or script is None:
        return None
    if (
        runtime[1].lower() != "node.exe"
        or script[1].lower() != "index.js"
        or runtime[0].lower() != script[0].lower()
    ):
        return None
    tail = [p for p in runtime[0].replace("\\", "/").split("/") if p][::-1]
    if len(tail) < 3:
        return None
    version, versions, package = tail[0], tail[1], tail[2]
    if package.lower() == "cursor-agent" and versions.lower() == "versions" and version.strip():
        return Agent.CURSOR.label
    return None


def _windows_cmd(argv: Sequence[str], resolve: Resolver | None) -> str | None:
    args = iter(argv[1:])
    for arg in args:
        flag = arg.strip('"').lower()
        if flag in ("/c", "/k"):
            command = next(args, None)
            return None if command is None else _command_text_agent(command, resolve)
        # /d /s /q … and any other token are ignored
    return None


def _powershell(argv: Sequence[str], resolve: Resolver | None) -> str | None:
    args = iter(argv[1:])
    for arg in args:
        flag = arg.strip('"').lower()
        if flag in ("-file", "-f", "/file"):
            path = next(args, None)
            return None if path is None else agent_name_from_path_token(path, resolve)
        if flag in ("-command", "-c", "/command", "/c"):
            command = next(args, None)
            return None if command is None else _command_text_agent(command, resolve)
        if flag in ("-encodedcommand", "-enc", "/encodedcommand", "/enc"):
            return None
        if flag in _PS_VALUE_OPTIONS:
            next(args, None)
            continue
        if flag.startswith(("-", "/")):
            continue
        return agent_name_from_path_token(arg, resolve)
    return None


def _command_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    rest = text
    while True:
        rest = rest.lstrip()
        if not rest:
            return tokens
        first = rest[0]
        if first in "\"'":
            end = rest.find(first, 1)
            if end < 0:
                tokens.append(rest[1:])
                return tokens
            tokens.append(rest[1:end])
            rest = rest[end + 1 :]
        else:
            end = next((i for i, ch in enumerate(rest) if ch.isspace()), len(rest))
            tokens.append(rest[:end])
            rest = rest[end:]


def _command_text_agent(command: str, resolve: Resolver | None) -> str | None:
    for raw in _command_tokens(command):
        token = rust_trim(raw)
        if token.lower() in ("&", ".", "call"):
            continue
        return agent_name_from_path_token(token, resolve)
    return None


def _rust_component_count(path: str) -> int:
    """Number of ``std::path::Path::components()`` of a Unix path."""
    count = 1 if path.startswith("/") else 0
    parts = path.split("/")
    for index, part in enumerate(parts):
        if not part or (part == "." and index > 0):
            continue
        count += 1
    return count


@lru_cache(maxsize=4096)
def _named_agent(trimmed: str) -> str | None:
    """The agent a token names by its text alone (cached: tokens repeat every probe)."""
    agent = parse_agent_label(path_basename(trimmed))
    if agent is not None:
        return agent.label
    components = [normalize_label(p) for p in trimmed.replace("\\", "/").split("/") if p]
    for window, label in _PACKAGE_WINDOWS:
        width = len(window)
        for start in range(len(components) - width + 1):
            if tuple(components[start : start + width]) == window:
                return label
    return None


def forget_cached_names() -> None:
    """The user kinds changed: a token that named nothing may name one now (or the
    reverse), so the token cache starts over."""
    _named_agent.cache_clear()


def agent_name_from_path_token(token: str, resolve: Resolver | None = None) -> str | None:
    """Canonical label of the agent a path or command token names (§2.7)."""
    trimmed = token.strip("\"'")
    if not trimmed or trimmed.startswith("-"):
        return None
    found = _named_agent(trimmed)
    if found is not None:
        return found
    if resolve is not None and _rust_component_count(trimmed) >= 2:
        resolved = resolve(trimmed)
        if resolved:
            agent = parse_agent_label(path_basename(resolved))
            if agent is not None:
                return agent.label
    return None


# ---------------------------------------------------------------------------
# HERDR_AGENT hint (§2.6) and probe order (§2.3)
# ---------------------------------------------------------------------------


def agent_hint_from_environ(environ: bytes) -> Agent | None:
    """The agent named by the first ``HERDR_AGENT=`` record of an environ block."""
    for record in environ.split(b"\0"):
        if record.startswith(b"HERDR_AGENT="):
            try:
                value = record[len(b"HERDR_AGENT=") :].decode("utf-8")
            except UnicodeDecodeError:
                return None
            return parse_agent_label(value)
    return None


def _result(
    job: ForegroundJob, shell_pid: int, agent: Agent | None, name: str | None
) -> ProbeResult:
    return ProbeResult(
        agent=agent,
        process_name=name,
        process_group_id=job.process_group_id,
        foreground_is_pane_shell=any(p.pid == shell_pid for p in job.processes),
    )


def _leader_only(job: ForegroundJob) -> ForegroundJob | None:
    for process in job.processes:
        if process.pid == job.process_group_id:
            return ForegroundJob(job.process_group_id, (process,))
    return None


def probe_foreground_process_from_jobs(
    shell_pid: int,
    foreground_pgid: int | None,
    leader_job: ForegroundJob | None,
    full_job: Callable[[], ForegroundJob | None],
    hint: HintReader,
    *,
    resolve: Resolver | None = None,
) -> ProbeResult:
    """Decide the pane's foreground agent from the cheap leader job, then the full job.

    ``full_job`` is only called when the leader job does not answer; ``hint``
    reads a process's HERDR_AGENT hint (pid 0 never has one).
    """

    def read_hint(pid: int) -> Agent | None:
        return hint(pid) if pid > 0 else None

    if leader_job is not None:
        agent = read_hint(leader_job.process_group_id)
        if agent is None:
            for process in leader_job.processes:
                if process.pid != leader_job.process_group_id:
                    agent = read_hint(process.pid)
                    if agent is not None:
                        break
        if agent is not None:
            return _result(leader_job, shell_pid, agent, agent.label)
        found = identify_agent_in_job(leader_job, resolve)
        if found is not None:
            return _result(leader_job, shell_pid, found[0], found[1])

    job = full_job()
    if job is None:
        return ProbeResult(None, None, foreground_pgid, False)
    if leader_job is not None and job == leader_job:
        # The whole group is the leader that step 1 already read: steps a–d would ask
        # the same questions of the same process again (a shell at its prompt).
        return _result(job, shell_pid, None, None)
    agent = read_hint(job.process_group_id)
    if agent is not None:
        return _result(job, shell_pid, agent, agent.label)
    leader = _leader_only(job)
    if leader is not None:
        found = identify_agent_in_job(leader, resolve)
        if found is not None:
            return _result(job, shell_pid, found[0], found[1])
    for process in job.processes:
        if process.pid != job.process_group_id:
            agent = read_hint(process.pid)
            if agent is not None:
                return _result(job, shell_pid, agent, agent.label)
    found = identify_agent_in_job(job, resolve)
    if found is None:
        return _result(job, shell_pid, None, None)
    return _result(job, shell_pid, found[0], found[1])


# ---------------------------------------------------------------------------
# child-groups mode (§2.2)
# ---------------------------------------------------------------------------


class ProcessDetectionMode(enum.Enum):
    NATIVE = "native"
    CHILD_GROUPS = "child-groups"


MAX_CHILD_GROUP_CHILDREN = 64


def parse_process_detection_mode(value: str | None) -> tuple[ProcessDetectionMode, str | None]:
    """Parse ``HERDR_PROCESS_DETECTION``; the second item is a warning, if any."""
    if value is None or value in ("", "native"):
        return ProcessDetectionMode.NATIVE, None
    if value == "child-groups":
        return ProcessDetectionMode.CHILD_GROUPS, None
    warning = (
        f"unknown HERDR_PROCESS_DETECTION value {value!r}; "
        "expected 'native' or 'child-groups', using native"
    )
    return ProcessDetectionMode.NATIVE, warning


def choose_child_group(shell_pgrp: int, child_pgrps: Sequence[int]) -> int | None:
    """child-groups mode: the newest (largest) child group, else the shell's own.

    ``child_pgrps`` are the pgrps of the shell's direct children; more than
    ``MAX_CHILD_GROUP_CHILDREN`` children means give up.
    """
    if shell_pgrp <= 0 or len(child_pgrps) > MAX_CHILD_GROUP_CHILDREN:
        return None
    candidates = [g for g in child_pgrps if g > 0 and g != shell_pgrp]
    return max(candidates) if candidates else shell_pgrp


# ---------------------------------------------------------------------------
# Probe scheduling (§2.9) and presence tracking (§2.8)
#
# Pure decisions the detection loop uses; times are seconds (floats) passed in.
# ---------------------------------------------------------------------------

PROCESS_RECHECK_IDENTIFIED = 5.0
PROCESS_RECHECK_MISSING_FOREGROUND_GROUP = 30.0
PROCESS_ACQUISITION_WINDOW = 8.0
PROCESS_ACQUISITION_FAST_WINDOW = 1.5
PROCESS_ACQUISITION_FAST_RECHECK = 0.5
PROCESS_ACQUISITION_SLOW_RECHECK = 2.0
PROCESS_ACQUISITION_IDLE_RESET = 2.0
AGENT_MISS_CONFIRMATION_ATTEMPTS = 6
RELEASE_REACQUIRE_SUPPRESSION = 1.0


class ProbeScheduleInput(Struct, frozen=True):
    """Everything ``should_probe_foreground_job`` looks at for one tick."""

    current_agent: Agent | None
    foreground_pgid: int | None
    last_foreground_pgid: int | None
    has_process_probe: bool
    elapsed_since_process_check: float
    suppressed_agent: Agent | None = None
    acquisition_age: float | None = None
    pending_foreground_shell_clear: bool = False
    pending_restore_probe: bool = False


def foreground_group_changed(foreground_pgid: int | None, last_pgid: int | None) -> bool:
    """The observed group differs from the tracked one and at least one is known."""
    return foreground_pgid != last_pgid and (foreground_pgid is not None or last_pgid is not None)


def process_group_for_change_tracking(observed: int | None, probed: int | None) -> int | None:
    """Only kernel-reported groups drive change detection (inferred ones never count)."""
    if observed is None:
        return None
    return probed if probed is not None else observed


def should_skip_probe_for_lifecycle_authority(
    authority_active: bool, i: ProbeScheduleInput
) -> bool:
    """A live full-lifecycle hook makes routine re-probes of an unchanged group pointless."""
    return (
        authority_active
        and i.foreground_pgid is not None
        and not i.pending_foreground_shell_clear
        and i.suppressed_agent is None
        and i.has_process_probe
        and not foreground_group_changed(i.foreground_pgid, i.last_foreground_pgid)
    )


def should_probe_foreground_job(i: ProbeScheduleInput) -> bool:
    """Whether this tick should read /proc for the foreground job (§2.9)."""
    if i.pending_foreground_shell_clear or i.pending_restore_probe:
        return True
    changed = foreground_group_changed(i.foreground_pgid, i.last_foreground_pgid)
    if i.suppressed_agent is not None:
        return not i.has_process_probe or changed
    age = i.acquisition_age
    if age is not None:
        interval = (
            PROCESS_ACQUISITION_FAST_RECHECK
            if age <= PROCESS_ACQUISITION_FAST_WINDOW
            else PROCESS_ACQUISITION_SLOW_RECHECK
        )
        if age <= PROCESS_ACQUISITION_WINDOW and i.elapsed_since_process_check >= interval:
            return True
    if i.current_agent is None:
        return (
            not i.has_process_probe
            or changed
            or (
                i.foreground_pgid is None
                and i.elapsed_since_process_check >= PROCESS_RECHECK_MISSING_FOREGROUND_GROUP
            )
        )
    return changed or i.elapsed_since_process_check >= PROCESS_RECHECK_IDENTIFIED


class ForegroundShellAgentAction(enum.Enum):
    OBSERVE_PROBE = "observe_probe"
    REPORT_PROCESS_EXIT = "report_process_exit"
    REPORT_REPLACEMENT_PROCESS = "report_replacement_process"
    CLEAR_AGENT = "clear_agent"


def foreground_shell_agent_action(
    previous: Agent | None,
    found: Agent | None,
    foreground_is_pane_shell: bool,
    process_exit_reported: bool,
) -> ForegroundShellAgentAction:
    """What a probe means for the pane's previous agent when the shell returns (§2.8)."""
    if previous is None:
        return ForegroundShellAgentAction.OBSERVE_PROBE
    if process_exit_reported:
        if found is previous:
            return ForegroundShellAgentAction.REPORT_REPLACEMENT_PROCESS
        if found is None:
            return ForegroundShellAgentAction.CLEAR_AGENT
        return ForegroundShellAgentAction.OBSERVE_PROBE
    if found is not None:
        return ForegroundShellAgentAction.OBSERVE_PROBE
    if foreground_is_pane_shell:
        # Publish an idle process-exit for the agent first; clear it afterwards.
        return ForegroundShellAgentAction.REPORT_PROCESS_EXIT
    return ForegroundShellAgentAction.OBSERVE_PROBE


class AgentPresence:
    """The pane's current agent, cleared only after several consecutive misses."""

    __slots__ = ("current", "misses")

    def __init__(self, current: Agent | None = None) -> None:
        self.current = current
        self.misses = 0

    def observe(self, found: Agent | None) -> bool:
        """Feed one probe result; returns whether the current agent changed."""
        if found is not None:
            self.misses = 0
            if found is self.current:
                return False
            self.current = found
            return True
        if self.current is None:
            self.misses = 0
            return False
        self.misses += 1
        if self.misses < AGENT_MISS_CONFIRMATION_ATTEMPTS:
            return False
        return self.clear()

    def clear(self) -> bool:
        """Forget the agent now; returns whether there was one."""
        had = self.current is not None
        self.current = None
        self.misses = 0
        return had
