"""``herdr status``'s ``detection:`` section: where agents' rules come from, the last
remote check, and every manifest / user-kind diagnostic.

With a server running the facts are its own (``server.agent_manifests``: what it
really uses); without one only the last check is read from ``status.toml`` and the
section points to ``herdr agent kinds`` (checking the files here would load the
detection engine, and ``herdr status`` stays light). Like the ``config:`` section, problems
change the summary and the next step, never the exit code. The shaping is pure
(`detection_doc`, `detection_lines`); `gather` does the I/O.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from typing import Any

_ORDER = ("bundled", "remote", "local override", "user kind")


def _when(unix: Any) -> str:
    if not isinstance(unix, int) or unix < 0:
        return "never"
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(unix))


def detection_doc(status: dict[str, Any], running: bool) -> dict[str, Any]:
    """PURE: the section from an ``agent_manifest_status`` result (or its offline twin)."""
    manifests = [m for m in status.get("manifests") or [] if isinstance(m, dict)]
    counts: dict[str, int] = {}
    for entry in manifests:
        kind = str(entry.get("source_kind") or "unknown")
        counts[kind] = counts.get(kind, 0) + 1
    not_bundled = [
        f"{m.get('agent')} {m.get('active_version') or 'unversioned'} ({m.get('source_kind')})"
        for m in manifests
        if m.get("source_kind") != "bundled"
    ]
    problems = [
        f"{m.get('agent')}: {m['warning']}" for m in manifests if isinstance(m.get("warning"), str)
    ]
    problems += [str(e) for e in status.get("user_kind_errors") or [] if e not in problems]
    result = status.get("last_result")
    return {
        "source": "server" if running else "files",
        "manifests": len(manifests),
        "sources": {k: counts[k] for k in sorted(counts, key=_rank)},
        "not_bundled": not_bundled,
        "last_check": {
            "result": result if isinstance(result, str) else None,
            "at": _when(status.get("last_check_unix")),
        },
        "problems": problems,
    }


def _rank(kind: str) -> tuple[int, str]:
    return (_ORDER.index(kind) if kind in _ORDER else len(_ORDER), kind)


def detection_lines(doc: dict[str, Any], indent: str) -> list[str]:
    """PURE: the human section (one summary line, the last check, then each problem)."""
    if doc["manifests"]:
        parts = ", ".join(f"{n} {kind}" for kind, n in doc["sources"].items())
        summary = f"{doc['manifests']} manifests ({parts})"
        if doc["not_bundled"]:
            summary += f"; not bundled: {', '.join(doc['not_bundled'])}"
    else:
        summary = "server not running; `herdr agent kinds` checks the files offline"
    check = doc["last_check"]
    last = "never" if check["at"] == "never" else f"{check['result'] or 'unknown'} at {check['at']}"
    lines = [f"{indent}manifests: {summary}", f"{indent}last update check: {last}"]
    if doc["source"] == "files":
        return [*lines, f"{indent}problems: not checked (no server)"]
    count = len(doc["problems"])
    lines.append(f"{indent}problems: {count or 'none'}")
    lines += [f"{indent}  {problem}" for problem in doc["problems"]]
    return lines


def _offline() -> dict[str, Any]:
    """Without a server: ``status.toml``'s last check only. Checking the kind files
    would load the detection engine (``regex``), which ``herdr status`` must not."""
    import tomllib

    from herdr.config.paths import manifest_status_file

    try:
        with open(manifest_status_file(os.environ), "rb") as fh:
            raw = tomllib.load(fh)
    except (OSError, ValueError):
        raw = {}
    return {"last_result": raw.get("last_result"), "last_check_unix": raw.get("last_check_unix")}


def gather(socket_path: str, running: bool) -> dict[str, Any]:
    """The section's document: the server's view when it runs, else the files'."""
    if running:
        from herdr.cli.transport import RequestFailed, request

        try:
            envelope = request(socket_path, "server.agent_manifests", {}, timeout=5.0)
        except RequestFailed:
            envelope = {}
        result = envelope.get("result")
        if isinstance(result, dict):
            return detection_doc(result, True)
    return detection_doc(_offline(), False)
