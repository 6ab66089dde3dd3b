"""User-defined agent kinds: ``$XDG_CONFIG_HOME/herdr/agents/<label>.toml`` (issue 17 item 3).

A user adds an agent herdr never shipped with two files: the kind file (label, name,
process names, argv patterns, aliases, start/resume commands) and a sibling
``<label>.manifest.toml`` with the bundled manifests' schema. Parsing here is pure
(text in, spec or one ``file:line`` diagnostic out); `load_user_kinds` is the only I/O.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import tomllib

from msgspec import Struct

from herdr.detect.manifest import Manifest, ManifestError, parse_manifest
from herdr.detect.owned_files import UntrustedFile, check_dir, read_owned

LABEL_RE = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
MAX_NAMES = 16
MAX_FILE_BYTES = 256 * 1024
_KEYS = frozenset(
    {"label", "name", "process_names", "argv_patterns", "aliases", "command", "resume"}
)
_LINE_RE = re.compile(r"at line (\d+)")


class UserKindSpec(Struct, frozen=True):
    """One validated user kind (without its manifest)."""

    label: str
    name: str
    process_names: tuple[str, ...]
    argv_patterns: tuple[str, ...]
    aliases: tuple[str, ...]
    command: tuple[str, ...]
    resume: tuple[str, ...] | None  # argv template; exactly one item holds {session}
    path: str

    @property
    def lookup_names(self) -> tuple[str, ...]:
        """Every name that identifies this kind: label, process names, aliases."""
        seen: dict[str, None] = dict.fromkeys((self.label, *self.process_names, *self.aliases))
        return tuple(seen)

    def argv_matches(self, script: str) -> bool:
        """A runtime's script argument (``node …/cli.js``) matches one of the patterns."""
        return any(fnmatch.fnmatchcase(script, pattern) for pattern in self.argv_patterns)


class UserKind(Struct, frozen=True):
    """A kind with its compiled manifest, ready to register."""

    spec: UserKindSpec
    manifest: Manifest
    manifest_path: str
    digest: str = ""  # sha256 of both files: a reload tells an edited kind by it


class UserKindError(Exception):
    """One diagnostic: ``path:line: message`` (``path: message`` when no line applies:
    a file or directory refused for its owner or mode)."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = " ".join(message.split())
        where = path if line is None else f"{path}:{line}"
        super().__init__(f"{where}: {self.message}")


def error_line(message: str, text: str) -> int:
    """The line a TOML/manifest error names (``at line N``; end of document: the last)."""
    match = _LINE_RE.search(message)
    if match:
        return int(match.group(1))
    if "end of document" in message:
        return max(1, len(text.splitlines()))
    return 1


def key_line(text: str, key: str) -> int:
    """The 1-based line assigning top-level ``key`` (1 when it is absent)."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("["):
            break
        if pattern.match(line):
            return number
    return 1


def _names(data: dict[str, object], key: str, text: str, path: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise UserKindError(path, key_line(text, key), f"{key} must be a list of non-empty strings")
    if len(value) > MAX_NAMES:
        raise UserKindError(path, key_line(text, key), f"{key} has more than {MAX_NAMES} entries")
    return tuple(v.strip() for v in value)


def _string(data: dict[str, object], key: str, text: str, path: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or any(c in value for c in "\x00\r\n"):
        raise UserKindError(path, key_line(text, key), f"{key} must be a one-line string")
    return value.strip()


def _resume(data: dict[str, object], text: str, path: str) -> tuple[str, ...] | None:
    """The resume argv template: a list (never a shell string), ``{session}`` once, in
    one item that is not the program."""
    if "resume" not in data:
        return None
    line = key_line(text, "resume")
    if isinstance(data["resume"], str):
        raise UserKindError(
            path, line, 'resume must be an argv list such as ["zork", "--resume", "{session}"]'
        )
    items = _names(data, "resume", text, path)
    if not items:
        raise UserKindError(path, line, "resume must not be empty")
    holders = [i for i, item in enumerate(items) if "{session}" in item]
    if len(holders) != 1 or items[holders[0]].count("{session}") != 1:
        raise UserKindError(path, line, "resume must contain {session} exactly once")
    if holders[0] == 0:
        raise UserKindError(path, line, "resume's program (its first item) cannot be {session}")
    return items


def parse_user_kind(text: str, path: str, builtin_names: frozenset[str]) -> UserKindSpec:
    """Validate one kind file; the label must equal the file's stem and be new."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserKindError(path, error_line(str(exc), text), str(exc)) from exc
    for key in data:
        if key not in _KEYS:
            raise UserKindError(path, key_line(text, key), f"unknown key {key!r}")
    label = data.get("label")
    stem = os.path.basename(path).removesuffix(".toml")
    line = key_line(text, "label")
    if not isinstance(label, str) or not LABEL_RE.match(label):
        raise UserKindError(path, line, "label must match [a-z][a-z0-9_-]{0,31}")
    if label != stem:
        raise UserKindError(path, line, f"label {label!r} must equal the file name {stem!r}")
    process_names = _names(data, "process_names", text, path)
    argv_patterns = _names(data, "argv_patterns", text, path)
    aliases = _names(data, "aliases", text, path)
    if not process_names and not argv_patterns:
        raise UserKindError(path, 1, "give process_names or argv_patterns to identify the agent")
    for key, names in (("label", (label,)), ("process_names", process_names), ("aliases", aliases)):
        for value in names:
            if value.lower() in builtin_names:
                raise UserKindError(
                    path,
                    key_line(text, key),
                    f"{value!r} already names a built-in agent (bundled with herdr), "
                    "which keeps it; the kind is not loaded",
                )
    name = _string(data, "name", text, path) or label
    command = _names(data, "command", text, path) or ((process_names or (label,))[0],)
    resume = _resume(data, text, path)
    return UserKindSpec(label, name, process_names, argv_patterns, aliases, command, resume, path)


def parse_user_manifest(text: str, path: str, label: str) -> Manifest:
    """The sibling manifest: same validator as bundled files; its id must be the label."""
    try:
        manifest = parse_manifest(text)
    except ManifestError as exc:
        raise UserKindError(path, error_line(str(exc), text), str(exc)) from exc
    if manifest.id != label and label not in manifest.aliases:
        raise UserKindError(
            path, key_line(text, "id"), f"manifest id {manifest.id!r} must be {label!r}"
        )
    return manifest


def _read(path: str) -> str:
    """Our file's text; a foreign or group/world-writable file (or link to one) is refused."""
    try:
        data = read_owned(path, MAX_FILE_BYTES)
    except UntrustedFile as exc:
        raise UserKindError(path, None, exc.reason) from None
    if len(data) > MAX_FILE_BYTES:
        raise UserKindError(path, 1, f"file is larger than {MAX_FILE_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserKindError(path, 1, f"file is not valid UTF-8: {exc}") from exc


def load_one(kind_path: str, builtin_names: frozenset[str]) -> UserKind:
    """Read a kind file and its ``<label>.manifest.toml``; raises `UserKindError`."""
    try:
        kind_text = _read(kind_path)
        spec = parse_user_kind(kind_text, kind_path, builtin_names)
        manifest_path = kind_path.removesuffix(".toml") + ".manifest.toml"
        try:
            manifest_text = _read(manifest_path)
        except FileNotFoundError:
            raise UserKindError(kind_path, 1, f"missing manifest {manifest_path}") from None
        manifest = parse_user_manifest(manifest_text, manifest_path, spec.label)
    except OSError as exc:
        raise UserKindError(kind_path, 1, f"cannot read: {exc.strerror or exc}") from exc
    digest = hashlib.sha256(f"{kind_text}\x00{manifest_text}".encode("utf-8", "replace"))
    return UserKind(spec, manifest, manifest_path, digest.hexdigest())


def load_user_kinds(
    directory: str, builtin_names: frozenset[str]
) -> tuple[list[UserKind], list[UserKindError]]:
    """Every valid kind in ``directory`` (sorted by label) and one diagnostic per bad file.

    A directory another user owns or others can write loads nothing: one diagnostic.
    """
    try:
        check_dir(directory)
        entries = sorted(os.listdir(directory))
    except UntrustedFile as exc:
        return [], [UserKindError(directory, None, exc.reason)]
    except OSError:
        return [], []
    kinds: list[UserKind] = []
    errors: list[UserKindError] = []
    for entry in entries:
        if not entry.endswith(".toml") or entry.endswith(".manifest.toml"):
            continue
        try:
            kinds.append(load_one(os.path.join(directory, entry), builtin_names))
        except UserKindError as exc:
            errors.append(exc)
    return kinds, errors
