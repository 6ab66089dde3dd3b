"""Kimi Code: a managed ``[[hooks]]`` block in ``config.toml``, and its version gate."""

from __future__ import annotations

import posixpath
import shutil
import subprocess
from collections.abc import Mapping

from herdr.integrations import files as fs
from herdr.integrations import toml_edit
from herdr.integrations.base import Edit, apply_edit, asset, parse_error
from herdr.integrations.files import IntegrationError
from herdr.integrations.hook_targets import HookIntegration
from herdr.integrations.targets import hook_command

KIMI_MIN = (0, 14, 0)


def parse_kimi_version(output: str) -> tuple[int, int, int] | None:
    """``kimi --version`` → (major, minor, patch): the first token, ``v`` stripped."""
    for word in output.split():
        parts = word.removeprefix("v").split(".")
        if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
            continue
        patch = ""
        for ch in parts[2] if len(parts) > 2 else "":
            if not ch.isdigit():
                break
            patch += ch
        return int(parts[0]), int(parts[1]), int(patch or 0)
    return None


class KimiIntegration(HookIntegration):
    """A managed ``[[hooks]]`` block in ``config.toml``; needs Kimi Code 0.14.0 or newer."""

    def _probe(self, env: Mapping[str, str]) -> str | None:
        """A warning, or None; raises when the installed Kimi is too old."""
        found = shutil.which("kimi", path=env.get("PATH", ""))
        if found is None:
            return "warning: could not run `kimi --version` (kimi is not on PATH)"
        try:
            done = subprocess.run(
                [found, "--version"],
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
                env=dict(env),
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"warning: could not run `kimi --version` ({exc})"
        version = parse_kimi_version(done.stdout) if done.returncode == 0 else None
        if version is None:
            return "warning: could not parse the kimi code version from `kimi --version`"
        if version < KIMI_MIN:
            have = ".".join(map(str, version))
            raise IntegrationError(
                f"kimi code {have} is too old: herdr hooks require kimi code 0.14.0 or newer. "
                "upgrade kimi code, then re-run install"
            )
        return None

    def _commands(self, directory: str) -> dict[str, str]:
        script = posixpath.join(directory, self.script)
        return {a: hook_command(script, a) for a in ("session", "working", "blocked", "idle")}

    def install(self, env: Mapping[str, str]) -> list[str]:
        warning = self._probe(env)
        p = self.paths(env)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        config = posixpath.join(p.directory, "config.toml")
        before = fs.read_text(config)
        text = before or ""
        nl = "\r\n" if "\r\n" in text else "\n"
        try:
            after = toml_edit.set_kimi_block(
                text, toml_edit.kimi_block(self._commands(p.directory), nl)
            )
        except toml_edit.TomlEditError as exc:
            raise parse_error(config, exc) from None
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset("kimi", "herdr-agent-state.sh"), 0o755)
        apply_edit(Edit(config, before, after))
        messages = [
            f"installed kimi integration hook to {p.status_file}",
            f"ensured kimi config at {config}",
            "requires kimi code 0.14.0 or newer",
        ]
        return [*messages, warning] if warning else messages

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        config = posixpath.join(p.directory, "config.toml")
        before = fs.read_text(config)
        edit: Edit | None = None
        if before is not None:
            try:
                after: str | None = toml_edit.remove_kimi_block(before)
            except toml_edit.TomlEditError as exc:
                raise parse_error(config, exc) from None
            edit = Edit(config, before, None if after == "" and before != "" else after)
        removed = fs.remove(p.status_file)
        messages = [
            f"removed kimi hook at {p.status_file}"
            if removed
            else f"no kimi hook found at {p.status_file}"
        ]
        if edit is not None and edit.changed:
            apply_edit(edit)
            messages.append(f"removed herdr kimi hook entries from {config}")
        else:
            messages.append(f"no herdr kimi hook entries found in {config}")
        return messages
