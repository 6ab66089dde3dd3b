"""``herdr plugin install <owner>/<repo>[/sub..] [--ref R]``: a git checkout, a preview,
the manifest's build steps, then the registry (spec §9 "Trust").

Nothing runs before the user has seen the preview (unless ``--yes``): the clone is a
plain ``git clone`` (no hooks of the repository run), and build steps run only here,
never at plugin run time. A manifest that changed between preview and build aborts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from herdr.plugins import manifest as mf
from herdr.plugins.registry import (
    Registry,
    RegistryError,
    github_checkout_dir,
    read_manifest,
)
from herdr.vocab import ErrorCode

GIT_BASE_ENV = "HERDR_PLUGIN_GIT_BASE"  # our extension: the forge (default GitHub)
DEFAULT_GIT_BASE = "https://github.com"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
INSTALL_FAILED = ErrorCode.PLUGIN_INSTALL_FAILED.value
INVALID_SOURCE = ErrorCode.INVALID_PLUGIN_SOURCE.value
BUILD_TIMEOUT_S = 600.0


class InstallError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Spec:
    owner: str
    repo: str
    subdir: str | None

    @property
    def label(self) -> str:
        return "/".join(p for p in (self.owner, self.repo, self.subdir) if p)


def parse_spec(text: str) -> Spec:
    """``owner/repo[/sub/dirs]``; every part a plain name (no ``..``, no empty parts)."""
    parts = text.strip().rstrip("/").split("/")
    if len(parts) < 2 or not all(_NAME.fullmatch(p) and p not in (".", "..") for p in parts):
        raise InstallError(INVALID_SOURCE, f"expected <owner>/<repo>[/subdir], got {text!r}")
    repo = parts[1].removesuffix(".git")
    return Spec(parts[0], repo, "/".join(parts[2:]) or None)


def _git(args: list[str], cwd: str | None = None) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InstallError(INSTALL_FAILED, f"git {args[0]}: {exc}") from None
    if done.returncode != 0:
        raise InstallError(INSTALL_FAILED, f"git {args[0]} failed: {done.stderr.strip()}")
    return done.stdout


@dataclass
class Staged:
    """A checkout waiting for confirmation."""

    spec: Spec
    url: str
    ref: str | None
    commit: str
    workdir: Path
    root: Path
    manifest: mf.Manifest
    manifest_text: bytes

    def preview(self) -> str:
        info = self.manifest.info
        lines = [
            f"plugin {info['plugin_id']} {info['version']} ({info['name']})",
            f"source: {self.url}"
            + (f" subdir {self.spec.subdir}" if self.spec.subdir else "")
            + (f" ref {self.ref}" if self.ref else ""),
            f"commit: {self.commit}",
        ]
        for title, key in (("build", "build"), ("startup", "startup")):
            for step in info.get(key, ()):
                lines.append(f"{title}: {_argv(step['command'])}")
        for action in info.get("actions", ()):
            lines.append(f"action {action['id']}: {_argv(action['command'])}")
        for hook in info.get("events", ()):
            lines.append(f"on {hook['on']}: {_argv(hook['command'])}")
        for pane in info.get("panes", ()):
            lines.append(f"pane {pane['id']}: {_argv(pane['command'])}")
        lines.append("plugins run as you, with the full herdr CLI; there is no sandbox.")
        return "\n".join(lines)

    def discard(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)


def _argv(command: list[str]) -> str:
    import shlex

    return shlex.join(command)


def stage(env: Mapping[str, str], text: str, ref: str | None) -> Staged:
    """Clone and read the manifest; runs nothing from the repository."""
    spec = parse_spec(text)
    base = env.get(GIT_BASE_ENV) or DEFAULT_GIT_BASE
    url = f"{base.rstrip('/')}/{spec.owner}/{spec.repo}.git"
    parent = github_checkout_dir(env, "x").parent
    parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    workdir = Path(tempfile.mkdtemp(prefix=".install-", dir=parent))
    try:
        checkout = workdir / "checkout"
        _git(["clone", "--quiet", "--no-checkout", url, str(checkout)])
        commit = _resolve(checkout, ref)
        _git(["-c", "advice.detachedHead=false", "checkout", "--quiet", commit], str(checkout))
        root = checkout / spec.subdir if spec.subdir else checkout
        if not root.resolve().is_relative_to(checkout.resolve()):
            raise InstallError(INVALID_SOURCE, f"{spec.subdir} leaves the repository")
        path = root / mf.MANIFEST_NAME
        try:
            loaded = read_manifest(path)
        except mf.ManifestError as exc:
            raise InstallError(exc.code, exc.message) from None
        return Staged(spec, url, ref, commit, workdir, root, loaded, path.read_bytes())
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise


def _resolve(checkout: Path, ref: str | None) -> str:
    """The commit ``ref`` names (a tag, a commit, or a branch of the remote)."""
    if ref is not None and (ref.startswith("-") or not ref.strip()):
        raise InstallError(INVALID_SOURCE, f"invalid ref {ref!r}")
    for candidate in [ref or "HEAD", *([f"origin/{ref}"] if ref else [])]:
        try:
            return _git(
                ["rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"], str(checkout)
            ).strip()
        except InstallError:
            continue
    raise InstallError(INSTALL_FAILED, f"ref {ref} not found in the repository")


def finish(env: Mapping[str, str], staged: Staged, out: Callable[[str], None]) -> dict[str, Any]:
    """Build (after confirmation), move into place and register; returns the info."""
    registry = Registry.of(env)
    plugin_id = staged.manifest.plugin_id
    try:
        existing = registry.get(plugin_id)
    except RegistryError:
        existing = None
    if existing is not None and existing.source.get("kind", "local") != "github":
        raise InstallError(
            ErrorCode.PLUGIN_ALREADY_INSTALLED.value,
            f"plugin {plugin_id} is linked from {existing.plugin_root}; unlink it first",
        )
    if (staged.root / mf.MANIFEST_NAME).read_bytes() != staged.manifest_text:
        raise InstallError(INSTALL_FAILED, "the manifest changed after the preview; aborted")
    platform = mf.current_platform(sys.platform)
    build_env = {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}
    for step in staged.manifest.info.get("build", ()):
        if not mf.supports(step.get("platforms"), platform):
            continue
        out(f"build: {_argv(step['command'])}")
        try:
            done = subprocess.run(
                step["command"],
                cwd=staged.root,
                env=build_env,
                stdin=subprocess.DEVNULL,
                timeout=BUILD_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InstallError(INSTALL_FAILED, f"build step failed: {exc}") from None
        if done.returncode != 0:
            raise InstallError(
                INSTALL_FAILED, f"build step exited {done.returncode}; nothing was installed"
            )
    managed = github_checkout_dir(env, plugin_id)
    old = managed.with_name(managed.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if managed.exists():
        managed.rename(old)
    checkout = staged.workdir / "checkout"
    checkout.rename(managed)
    shutil.rmtree(old, ignore_errors=True)
    root = managed / staged.spec.subdir if staged.spec.subdir else managed
    source = {
        "kind": "github",
        "owner": staged.spec.owner,
        "repo": staged.spec.repo,
        "resolved_commit": staged.commit,
        "managed_path": str(managed),
        "installed_unix_ms": time.time_ns() // 1_000_000,
    }
    if staged.spec.subdir:
        source["subdir"] = staged.spec.subdir
    if staged.ref:
        source["requested_ref"] = staged.ref
    try:
        return registry.link(str(root), enabled=True, source=source)
    except (RegistryError, mf.ManifestError) as exc:
        raise InstallError(exc.code, exc.message) from None


def uninstall(env: Mapping[str, str], target: str) -> tuple[str, bool]:
    """Remove a plugin by id or by ``owner/repo[/sub]``; deletes a managed checkout."""
    registry = Registry.of(env)
    entries = registry.entries()
    match = [e for e in entries if e.plugin_id == target]
    if not match and "/" in target:
        spec = parse_spec(target)
        match = [
            e
            for e in entries
            if e.source.get("kind") == "github"
            and e.source.get("owner") == spec.owner
            and e.source.get("repo") == spec.repo
            and e.source.get("subdir") == spec.subdir
        ]
    if not match:
        raise InstallError(ErrorCode.PLUGIN_NOT_FOUND.value, f"plugin {target} is not installed")
    entry = match[0]
    registry.unlink(entry.plugin_id)
    managed = entry.source.get("managed_path")
    removed_files = False
    if entry.source.get("kind") == "github" and isinstance(managed, str):
        expected = github_checkout_dir(env, entry.plugin_id)
        if Path(managed) == expected and expected.exists():
            shutil.rmtree(expected)
            removed_files = True
    return entry.plugin_id, removed_files
