"""The integration targets: names, labels, versions and where each agent keeps its config.

Pure: directories are resolved from an environment mapping with ``posixpath`` only, so
the table can be tested (and listed) without touching the file system.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass


class NoHomeError(ValueError):
    """No ``$HOME``: no agent config directory can be located."""


@dataclass(frozen=True)
class Target:
    """One agent herdr can install hooks into.

    ``name`` is the API enum, ``label`` what the CLI prints, ``commands`` the binaries
    whose presence on PATH makes the agent "available", ``version`` the marker our
    current files carry, ``dir_env`` the overrides (first set and non-empty wins)
    and ``default_dir`` the home-relative default.
    """

    name: str
    label: str
    agent: str
    commands: tuple[str, ...]
    version: int
    full_lifecycle: bool
    dir_env: tuple[str, ...]
    default_dir: str
    product: str  # for "… config directory not found at D. install <product> first"
    missing: str

    @property
    def source(self) -> str:
        return f"herdr:{self.name}"


def _t(
    name: str,
    version: int,
    default_dir: str,
    missing: str,
    *,
    env: tuple[str, ...] = (),
    label: str | None = None,
    agent: str | None = None,
    commands: tuple[str, ...] | None = None,
    full: bool = False,
    product: str | None = None,
) -> Target:
    return Target(
        name=name,
        label=label or name,
        agent=agent or name,
        commands=commands or (agent or name,),
        version=version,
        full_lifecycle=full,
        dir_env=env,
        default_dir=default_dir,
        product=product or name,
        missing=missing,
    )


# The order of ``herdr integration status`` (herdr's).
TARGETS: tuple[Target, ...] = (
    _t(
        "pi",
        9,
        ".pi/agent",
        "pi extension directory not found",
        env=("PI_CODING_AGENT_DIR",),
        full=True,
    ),
    _t("omp", 8, ".omp/agent", "omp extension directory not found", full=True),
    _t("claude", 8, ".claude", "claude directory not found", env=("CLAUDE_CONFIG_DIR",)),
    _t("codex", 8, ".codex", "codex config directory not found", env=("CODEX_HOME",)),
    _t(
        "copilot",
        3,
        ".copilot",
        "copilot config directory not found",
        env=("COPILOT_HOME",),
        product="github copilot cli",
    ),
    _t("devin", 2, ".config/devin", "devin config directory not found"),
    _t("droid", 3, ".factory", "droid config directory not found"),
    _t(
        "kimi",
        7,
        ".kimi-code",
        "kimi code config directory not found",
        env=("KIMI_CODE_HOME",),
        full=True,
        product="kimi code",
    ),
    _t("opencode", 11, ".config/opencode", "opencode config directory not found", full=True),
    _t(
        "kilo",
        4,
        ".config/kilo",
        "kilo config directory not found",
        commands=("kilo", "kilo-code"),
        full=True,
    ),
    _t("hermes", 5, ".hermes", "hermes config directory not found", env=("HERMES_HOME",)),
    _t("qodercli", 3, ".qoder", "qodercli config directory not found", env=("QODER_CONFIG_DIR",)),
    _t(
        "qwen",
        1,
        ".qwen",
        "qwen code config directory not found",
        env=("QWEN_HOME",),
        product="qwen code",
    ),
    _t(
        "cursor",
        1,
        ".cursor",
        "cursor config directory not found",
        env=("CURSOR_CONFIG_DIR",),
        commands=("cursor-agent",),
    ),
    _t("mastracode", 2, ".mastracode", "", full=True),
    _t(
        "antigravity_cli",
        2,
        ".gemini/config",
        "antigravity cli config directory not found",
        env=("ANTIGRAVITY_CLI_CONFIG_DIR",),
        label="antigravity-cli",
        agent="agy",
        product="antigravity cli",
    ),
    _t("grok", 1, ".grok", "grok config directory not found", env=("GROK_CONFIG_DIR", "GROK_HOME")),
)

BY_NAME: dict[str, Target] = {t.name: t for t in TARGETS}


def lookup(name: str) -> Target | None:
    """A target by API name or CLI label (``antigravity-cli`` and ``antigravity_cli``)."""
    return BY_NAME.get(name.replace("-", "_"))


def home_of(env: Mapping[str, str]) -> str:
    home = env.get("HOME", "")
    if not home:
        raise NoHomeError("home directory is not set; cannot locate home directory")
    return home


def expand(value: str, home: str) -> str:
    """herdr's tilde rule: ``~`` and ``~/…`` are home-relative; nothing else changes."""
    if value == "~":
        return home
    if value.startswith("~/"):
        return posixpath.join(home, value[2:])
    return value


_XDG_FOLLOWERS = frozenset({"opencode", "kilo"})


def config_dir(target: Target, env: Mapping[str, str]) -> str:
    """The agent's config directory, honouring its env override."""
    home = home_of(env)
    for name in target.dir_env:
        value = env.get(name, "")
        if value:
            return expand(value, home)
    if target.name == "devin" and env.get("XDG_CONFIG_HOME"):
        return posixpath.join(expand(env["XDG_CONFIG_HOME"], home), "devin")
    # opencode and kilo read $XDG_CONFIG_HOME/<name> when it is set (xdg-basedir: only an
    # absolute value counts); herdr writes ~/.config/<name> regardless, which those agents
    # never load under a custom XDG_CONFIG_HOME.
    xdg = env.get("XDG_CONFIG_HOME", "")
    if target.name in _XDG_FOLLOWERS and xdg.startswith("/"):
        return posixpath.join(xdg, target.name)
    if target.name == "omp":
        if env.get("PI_CODING_AGENT_DIR"):
            return expand(env["PI_CODING_AGENT_DIR"], home)
        return posixpath.join(home, env.get("PI_CONFIG_DIR") or ".omp", "agent")
    return posixpath.join(home, target.default_dir)


def hook_command(script: str, action: str | None, *, shell: str = "bash") -> str:
    """The exact command string agents run (ownership is recognised by equality)."""
    quoted = "'" + script.replace("'", "'\"'\"'") + "'"
    return f"{shell} {quoted}" + (f" {action}" if action else "")
