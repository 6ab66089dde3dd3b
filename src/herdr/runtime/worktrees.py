"""Git worktree facts from git's own text (PURE): the porcelain list, the repository a
checkout belongs to, default checkout paths, and what git's refusals mean.

The server runs git (`herdr.server.git_worktrees`); everything decided from its output
lives here, so it is tested without a repository.
"""

from __future__ import annotations

import posixpath
import re

from msgspec import Struct

from herdr.vocab import ErrorCode

DEFAULT_BRANCH_PREFIX = "worktree"
MAX_REF_CHARS = 255  # git refuses longer ref components on most filesystems anyway

# Error codes (herdr 0.9's spellings; repository_not_trusted is ours).
NOT_GIT_WORKTREE = ErrorCode.NOT_GIT_WORKTREE.value
LINKED_WORKTREE_SOURCE = ErrorCode.LINKED_WORKTREE_SOURCE.value
NOT_LINKED_WORKTREE = ErrorCode.NOT_LINKED_WORKTREE.value
DIRTY_WORKTREE = ErrorCode.DIRTY_WORKTREE_REQUIRES_FORCE.value
REPOSITORY_NOT_TRUSTED = ErrorCode.REPOSITORY_NOT_TRUSTED.value
IN_PROGRESS = ErrorCode.WORKTREE_OPERATION_IN_PROGRESS.value

_ADJECTIVES = ("brave", "calm", "clear", "green", "lucky", "quiet", "rapid", "silver")
_NOUNS = ("river", "cloud", "field", "forest", "harbor", "meadow", "stone", "valley")
_DUBIOUS = re.compile(r"detected dubious ownership in repository at '([^']*)'")


class Worktree(Struct, frozen=True):
    """One entry of ``git worktree list --porcelain``."""

    path: str
    branch: str | None = None
    is_bare: bool = False
    is_detached: bool = False
    is_prunable: bool = False


class GitSpace(Struct, frozen=True):
    """Where a path sits in git: its checkout, the repository's main checkout (or the
    bare repository), and the key every checkout of that repository shares."""

    checkout_path: str
    repo_root: str
    repo_key: str
    repo_name: str

    @property
    def is_linked_worktree(self) -> bool:
        return self.checkout_path != self.repo_root


def parse_worktree_list(text: str) -> list[Worktree]:
    """``git worktree list --porcelain -z``: NUL-terminated lines, an empty one between
    entries (NUL-separated, so a path with a newline is still one path)."""
    entries: list[Worktree] = []
    fields: dict[str, str | bool] = {}

    def finish() -> None:
        path = fields.get("path")
        if isinstance(path, str):
            branch = fields.get("branch")
            entries.append(
                Worktree(
                    path,
                    branch if isinstance(branch, str) else None,
                    fields.get("bare") is True,
                    fields.get("detached") is True,
                    fields.get("prunable") is True,
                )
            )
        fields.clear()

    for line in text.split("\0"):
        if not line:
            finish()
        elif line.startswith("worktree "):
            finish()
            fields["path"] = line[len("worktree ") :]
        elif line.startswith("branch "):
            ref = line[len("branch ") :]
            fields["branch"] = ref.removeprefix("refs/heads/")
        elif line in ("bare", "detached"):
            fields[line] = True
        elif line == "prunable" or line.startswith("prunable "):
            fields["prunable"] = True
    finish()
    return entries


def space_from_rev_parse(toplevel: str, common_dir: str) -> GitSpace:
    """The `GitSpace` of a checkout from ``rev-parse --path-format=absolute
    --show-toplevel --git-common-dir`` (both already made real paths by the caller).

    The main checkout is the parent of a ``.git`` common dir; a bare repository's root
    is the common dir itself. The key is the common dir: every worktree shares it.
    """
    common = common_dir.rstrip("/") or "/"
    root = posixpath.dirname(common) if posixpath.basename(common) == ".git" else common
    name = posixpath.basename(root.rstrip("/")) or root
    if name.endswith(".git") and len(name) > len(".git"):
        name = name[: -len(".git")]
    return GitSpace(toplevel, root, common, name)


def ref_problem(value: str, what: str) -> str | None:
    """Why `value` cannot be passed to git as a branch or revision, or None.

    A leading ``-`` would read as an option; control characters and NUL never name a
    ref. git's own ``check-ref-format`` judges the rest.
    """
    if not value or not value.strip():
        return f"{what} must not be empty"
    if value.startswith("-"):
        return f"{what} must not start with '-': {value[:40]!r}"
    if len(value) > MAX_REF_CHARS:
        return f"{what} is longer than {MAX_REF_CHARS} characters"
    if any(ord(ch) < 0x20 or ch == "\x7f" for ch in value):
        return f"{what} must not contain control characters"
    return None


def generated_branch(seed: int) -> str:
    """A branch name for ``worktree create`` without ``branch`` (herdr's shape)."""
    adjective = _ADJECTIVES[seed % len(_ADJECTIVES)]
    noun = _NOUNS[(seed // len(_ADJECTIVES)) % len(_NOUNS)]
    return f"{DEFAULT_BRANCH_PREFIX}/{adjective}-{noun}-{seed & 0xFFFF:04x}"


def branch_slug(branch: str) -> str:
    """A directory name for a branch: lowercase ASCII alphanumerics, runs of anything
    else folded to one ``-`` (``feature/Login UI`` -> ``feature-login-ui``)."""
    out: list[str] = []
    for ch in branch:
        if ch.isascii() and ch.isalnum():
            out.append(ch.lower())
        elif out and out[-1] != "-":
            out.append("-")
    slug = "".join(out).strip("-")
    return slug or DEFAULT_BRANCH_PREFIX


def expand_home(path: str, home: str) -> str:
    """``~`` and ``~/x`` against `home` (the server's ``$HOME``); others unchanged."""
    if path == "~":
        return home
    if path.startswith("~/"):
        return posixpath.join(home, path[2:])
    return path


def default_checkout_path(directory: str, home: str, repo_name: str, branch: str) -> str:
    """``<worktrees.directory>/<repo>/<branch-slug>`` (herdr-spec: worktree create)."""
    root = expand_home(directory, home)
    return posixpath.normpath(posixpath.join(root, branch_slug(repo_name), branch_slug(branch)))


def dubious_path(stderr: str) -> str | None:
    """The directory git refused for its owner (``safe.directory``), if that is the error."""
    found = _DUBIOUS.search(stderr)
    return found.group(1) if found else None


def failure_code(stderr: str, fallback: str) -> str:
    """The error code for a failed git command, from git's (``LC_ALL=C``) message."""
    lower = stderr.lower()
    if "detected dubious ownership" in lower:
        return REPOSITORY_NOT_TRUSTED
    if "not a git repository" in lower:
        return NOT_GIT_WORKTREE
    if "contains modified or untracked files" in lower or "use --force to delete it" in lower:
        return DIRTY_WORKTREE
    if "is not a working tree" in lower:
        return ErrorCode.WORKTREE_NOT_FOUND.value
    return fallback


def first_line(text: str, limit: int = 400) -> str:
    """git's message, trimmed to its meaningful lines and bounded for an error answer."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    message = "; ".join(fatal or lines) or "git failed"
    return message if len(message) <= limit else message[: limit - 3] + "..."
