"""The pieces every integration target shares: assets, planned edits, the base class.

Every target computes all of its edits first (an invalid user file stops the install
before anything is written), then writes our own files, then the agent's config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files as resources

from herdr.integrations import files as fs
from herdr.integrations import hook_config, session_hook, toml_edit
from herdr.integrations import json_edit as je
from herdr.integrations.files import IntegrationError
from herdr.integrations.targets import BY_NAME, Target, hook_command

NEW_JSON = "{}\n"
ACTIONS = ("session", "working", "blocked", "idle", "release")


def asset(target: str, name: str) -> str:
    """A file we install for ``target``: shipped as is, or a session hook rendered from
    the shared frame (see :mod:`herdr.integrations.session_hook`)."""
    root = resources("herdr.integrations")
    shipped = root.joinpath(target, name)
    if shipped.is_file():
        return shipped.read_text(encoding="utf-8")
    part = root.joinpath(target, session_hook.PART)
    if name != session_hook.script_name(target) or not part.is_file():
        return shipped.read_text(encoding="utf-8")  # raises: no such asset
    frame = root.joinpath(session_hook.FRAME).read_text(encoding="utf-8")
    return session_hook.render(frame, part.read_text(encoding="utf-8"), BY_NAME[target])


def parse_error(path: str, exc: Exception) -> IntegrationError:
    if isinstance(exc, je.JsonEditError | toml_edit.TomlEditError):
        line = getattr(exc, "line", 0)
        where = f"{path}:{line}" if line else path
        return IntegrationError(f"failed to parse {where}: {exc}")
    return IntegrationError(f"{path} {exc}")


def owned_commands(script: str) -> frozenset[str]:
    return frozenset({hook_command(script, None), *(hook_command(script, a) for a in ACTIONS)})


@dataclass
class Edit:
    """A planned change of one config file: the new text (None: delete the file)."""

    path: str
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after


def apply_edit(edit: Edit) -> None:
    if not edit.changed:
        return
    if edit.after is None:
        fs.remove(edit.path)
    else:
        fs.write_text(edit.path, edit.after)


def json_install(path: str, plan: hook_config.HookPlan, new_file: str = NEW_JSON) -> Edit:
    before = fs.read_text(path)
    try:
        after = hook_config.install(new_file if before is None else before, plan)
    except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
        raise parse_error(path, exc) from None
    return Edit(path, before, after)


def json_uninstall(path: str, plan: hook_config.HookPlan, new_file: str = NEW_JSON) -> Edit:
    before = fs.read_text(path)
    if before is None:
        return Edit(path, None, None)
    try:
        after: str | None = hook_config.uninstall(before, plan)
    except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
        raise parse_error(path, exc) from None
    if after == new_file and before != new_file:
        after = None  # only our entries were in it: the file we created goes again
    return Edit(path, before, after)


# --- the targets --------------------------------------------------------------------


@dataclass(frozen=True)
class Paths:
    directory: str
    status_file: str


class Integration:
    """How one target is installed; subclasses fill in the agent-specific parts."""

    def __init__(self, target: Target) -> None:
        self.target = target

    def paths(self, env: Mapping[str, str]) -> Paths:
        raise NotImplementedError

    def install(self, env: Mapping[str, str]) -> list[str]:
        raise NotImplementedError

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        raise NotImplementedError

    def config_ok(self, env: Mapping[str, str]) -> bool:
        """Extra status check beyond the status file's marker."""
        return True

    def missing(self, directory: str) -> str:
        return f"{self.target.missing} at {directory}. install {self.target.product} first"
