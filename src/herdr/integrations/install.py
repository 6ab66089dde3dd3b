"""Install, uninstall and inspect herdr's integrations: the target registry and the
entry points the CLI (in-process, no server needed) and the server's ``integration.*``
methods (the server's environment then decides the paths) call.

Each entry point returns the lines the CLI prints and the API returns as
``details.messages``; every failure is an :class:`IntegrationError` with one line.
"""

from __future__ import annotations

import posixpath
import threading
from collections.abc import Callable, Mapping

from herdr.integrations import files as fs
from herdr.integrations import hook_config, markers, toml_edit, yaml_edit
from herdr.integrations import json_edit as je
from herdr.integrations.base import Integration
from herdr.integrations.files import IntegrationError
from herdr.integrations.hook_targets import (
    MASTRACODE_EVENTS,
    AntigravityIntegration,
    CodexIntegration,
    CursorIntegration,
    DroidIntegration,
    GrokIntegration,
    HookIntegration,
    copilot_plan,
    cursor_plan,
    mastracode_plan,
)
from herdr.integrations.kimi import KimiIntegration
from herdr.integrations.plugin_targets import (
    HermesIntegration,
    KiloIntegration,
    OmpIntegration,
    OpenCodeIntegration,
    PiIntegration,
)
from herdr.integrations.targets import TARGETS, NoHomeError, Target, config_dir

_LOCK = threading.Lock()  # one install at a time per process: no lost update of a file


def _registry() -> dict[str, Integration]:
    by = {t.name: t for t in TARGETS}
    return {
        "pi": PiIntegration(by["pi"]),
        "omp": OmpIntegration(by["omp"], "herdr-omp-agent-state.ts"),
        "kilo": KiloIntegration(by["kilo"]),
        "hermes": HermesIntegration(by["hermes"]),
        "claude": HookIntegration(
            by["claude"],
            script="hooks/herdr-agent-state.sh",
            settings="settings.json",
            events=("SessionStart",),
            matcher="*",
        ),
        "codex": CodexIntegration(
            by["codex"],
            script="herdr-agent-state.sh",
            settings="hooks.json",
            events=("SessionStart",),
            matcher=None,
            settings_word="hooks",
        ),
        "opencode": OpenCodeIntegration(by["opencode"]),
        "copilot": HookIntegration(
            by["copilot"],
            script="hooks/herdr-agent-state.sh",
            settings="settings.json",
            events=("SessionStart",),
            plan=copilot_plan,
        ),
        "devin": HookIntegration(
            by["devin"],
            script="herdr-agent-state.sh",
            settings="config.json",
            events=(
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUse",
                "PermissionRequest",
                "Stop",
            ),
            settings_word="config",
        ),
        "droid": DroidIntegration(
            by["droid"],
            script="hooks/herdr-agent-state.sh",
            settings="settings.json",
            events=("SessionStart",),
            settings_word="hooks",
        ),
        "qodercli": HookIntegration(
            by["qodercli"],
            script="hooks/herdr-agent-state.sh",
            settings="settings.json",
            events=("SessionStart",),
            matcher="*",
        ),
        "qwen": HookIntegration(
            by["qwen"],
            script="hooks/herdr-agent-session.sh",
            settings="settings.json",
            events=("SessionStart",),
            matcher="*",
            timeout=10000,
        ),
        "cursor": CursorIntegration(
            by["cursor"],
            script="herdr-agent-state.sh",
            settings="hooks.json",
            events=("sessionStart",),
            plan=cursor_plan,
            new_file='{\n  "version": 1\n}\n',
        ),
        "mastracode": HookIntegration(
            by["mastracode"],
            script="hooks/herdr-agent-state.sh",
            settings="hooks.json",
            events=tuple(MASTRACODE_EVENTS),
            plan=mastracode_plan,
            settings_word="hooks",
            create_dir=True,
        ),
        "antigravity_cli": AntigravityIntegration(
            by["antigravity_cli"],
            script="hooks/herdr-agent-state.sh",
            settings="hooks.json",
            events=("PreInvocation",),
        ),
        "kimi": KimiIntegration(
            by["kimi"], script="hooks/herdr-agent-state.sh", settings="", events=()
        ),
        "grok": GrokIntegration(
            by["grok"], script="hooks/herdr-agent-state.sh", settings="", events=()
        ),
    }


INTEGRATIONS: dict[str, Integration] = _registry()


def supported(name: str) -> bool:
    return name in INTEGRATIONS


def _run(name: str, action: Callable[[Integration], list[str]]) -> list[str]:
    integration = INTEGRATIONS.get(name)
    if integration is None:
        raise IntegrationError(f"the {name} integration is not available in this version of herdr")
    with _LOCK:
        try:
            return action(integration)
        except NoHomeError as exc:
            raise IntegrationError(str(exc)) from None
        except (
            je.JsonEditError,
            toml_edit.TomlEditError,
            yaml_edit.YamlEditError,
            hook_config.ConfigShapeError,
        ) as exc:  # a path the target code did not name: still one clear answer
            raise IntegrationError(f"{integration.target.label}: {exc}") from None
        except OSError as exc:  # anything the helpers did not name already
            raise IntegrationError(f"{exc.filename or name}: {exc.strerror or exc}") from None


def install(name: str, env: Mapping[str, str]) -> list[str]:
    return _run(name, lambda i: i.install(env))


def uninstall(name: str, env: Mapping[str, str]) -> list[str]:
    return _run(name, lambda i: i.uninstall(env))


def status(target: Target, env: Mapping[str, str]) -> markers.Status | None:
    """None when the target's directory cannot be located (no home)."""
    integration = INTEGRATIONS.get(target.name)
    try:
        if integration is None:
            path = config_dir(target, env)
            return markers.status_of(None, path, target.version)
        path = integration.paths(env).status_file
    except NoHomeError:
        return None
    try:
        text = fs.read_text(path) if fs.is_regular(path) else None
    except IntegrationError:
        text = None
    ok = text is None or integration.config_ok(env)
    return markers.status_of(text, path, target.version, config_ok=ok)


def available(target: Target, env: Mapping[str, str]) -> bool:
    """The agent's binary is an executable file on PATH (codex: or its standalone install)."""
    path_var = env.get("PATH", "")
    if any(fs.on_path(command, path_var) for command in target.commands):
        return True
    if target.name == "codex":
        import glob

        try:
            releases = posixpath.join(config_dir(target, env), "packages/standalone/releases")
        except NoHomeError:
            return False
        return any(
            fs.on_path("codex", posixpath.join(release, "bin"))
            for release in glob.glob(posixpath.join(glob.escape(releases), "*"))
        )
    return False


def listing(env: Mapping[str, str]) -> list[dict[str, object]]:
    """``IntegrationInfo`` records for every target (protocol 22 ``integration.list``)."""
    out: list[dict[str, object]] = []
    for target in TARGETS:
        st = status(target, env)
        out.append(
            {
                "target": target.name,
                "label": target.label,
                "command": target.commands[0],
                "available": available(target, env),
                "state": markers.NOT_INSTALLED if st is None else st.state,
            }
        )
    return out
