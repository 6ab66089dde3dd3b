"""Commit fetched manifests and ``status.toml`` atomically (detection-spec §7.5).

A reader (the server's reload, a concurrent CLI check) sees the old file or the new
one, never half of either. The writer is passed in (the server and CLI pass
``persist.files.atomic_write``) because ``detect/`` imports nothing above it.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path

from msgspec import Struct

Writer = Callable[[Path, bytes], object]
"""Atomic replace of a file's bytes; raises on failure (the old file stays)."""


class AgentStatus(Struct, frozen=True):
    cached_version: str | None
    attempted_version: str | None
    last_checked_unix: int
    last_result: str  # "updated" | "current" | "failed"
    last_error: str | None


def write_manifest(write: Writer, remote_dir: Path, label: str, text: str) -> None:
    """Replace ``<remote_dir>/<label>.toml`` byte for byte (the monotonic check compares)."""
    write(remote_dir / f"{label}.toml", text.encode("utf-8"))


def _toml_string(value: str) -> str:
    # JSON string escapes are a subset of TOML basic-string escapes; DEL must be escaped.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def render_status(last_check_unix: int, last_result: str, agents: Mapping[str, AgentStatus]) -> str:
    """TOML text for ``status.toml``; absent optional values are simply left out."""
    lines = [f"last_check_unix = {last_check_unix}", f"last_result = {_toml_string(last_result)}"]
    for label in agents:
        entry = agents[label]
        lines.append("")
        lines.append(f"[agents.{_toml_string(label)}]")
        if entry.cached_version is not None:
            lines.append(f"cached_version = {_toml_string(entry.cached_version)}")
        if entry.attempted_version is not None:
            lines.append(f"attempted_version = {_toml_string(entry.attempted_version)}")
        lines.append(f"last_checked_unix = {entry.last_checked_unix}")
        lines.append(f"last_result = {_toml_string(entry.last_result)}")
        if entry.last_error is not None:
            lines.append(f"last_error = {_toml_string(entry.last_error)}")
    return "\n".join(lines) + "\n"


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def read_status(path: Path) -> tuple[dict[str, AgentStatus], str | None]:
    """Previous per-agent entries; an unparsable file reads as empty plus a warning."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"ignored unreadable status file {path}: {exc}"
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return {}, f"ignored unparsable status file {path}: {exc}"
    agents = doc.get("agents")
    out: dict[str, AgentStatus] = {}
    if isinstance(agents, dict):
        for label, entry in agents.items():
            if not isinstance(entry, dict):
                continue
            checked = entry.get("last_checked_unix")
            result = entry.get("last_result")
            out[str(label)] = AgentStatus(
                _opt_str(entry.get("cached_version")),
                _opt_str(entry.get("attempted_version")),
                checked if isinstance(checked, int) and not isinstance(checked, bool) else 0,
                result if isinstance(result, str) else "failed",
                _opt_str(entry.get("last_error")),
            )
    return out, None


def write_status(write: Writer, path: Path, text: str) -> None:
    write(path, text.encode("utf-8"))
