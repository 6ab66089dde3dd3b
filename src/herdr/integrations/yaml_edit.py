"""Hermes's ``config.yaml``: our plugin in ``plugins.enabled``, by line edits, pure.

No YAML parser ships with Python, so this edits lines in the two layouts Hermes writes
(2-space block mappings and lists) and refuses anything else rather than guess. Lines
we add that the user had no equivalent of carry a marker comment, so uninstall can
give the file back byte for byte.
"""

from __future__ import annotations

ITEM = "herdr-agent-state"
MARK = "# added by herdr integration"


class YamlEditError(ValueError):
    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


def _scalar(text: str) -> str:
    """A plain/quoted scalar without its trailing ``# comment``."""
    body = text.split(" #", 1)[0].strip()
    if len(body) >= 2 and body[0] == body[-1] and body[0] in "'\"":
        body = body[1:-1]
    return body


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_ours(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("- ") and _scalar(stripped[2:]) == ITEM


def _section(lines: list[str], start: int) -> int:
    """The end (exclusive) of the block that starts after the top-level key at ``start``."""
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if line.strip() and not line.startswith((" ", "#")):
            break
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _find_top(lines: list[str], key: str) -> int | None:
    for i, line in enumerate(lines):
        if not line.startswith((" ", "\t", "#")) and line.split("#", 1)[0].rstrip() == f"{key}:":
            return i
        if line.startswith(f"{key}:") and line[len(key) + 1 :].split("#", 1)[0].strip():
            raise YamlEditError(f"{key}: has an inline value this edit does not handle", i + 1)
    return None


def enable(text: str) -> str:
    """``text`` with our plugin enabled (unchanged if it already is)."""
    if "\t" in text:
        raise YamlEditError("tabs in indentation are not valid YAML")
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(nl)
    top = _find_top(lines, "plugins")
    if top is None:
        body = text
        if body and not body.endswith(nl):
            body += nl
        added = [f"plugins: {MARK}", f"  enabled: {MARK}", f"    - {ITEM}"]
        return body + nl.join(added) + nl
    end = _section(lines, top)
    enabled = None
    for i in range(top + 1, end):
        line = lines[i]
        if _indent(line) == 2 and line.strip().split("#", 1)[0].rstrip() == "enabled:":
            enabled = i
            break
        if _indent(line) == 2 and line.strip().startswith("enabled:"):
            raise YamlEditError(
                "plugins.enabled has an inline value this edit does not handle", i + 1
            )
    if enabled is None:
        lines[top + 1 : top + 1] = [f"  enabled: {MARK}", f"    - {ITEM}"]
        return nl.join(lines)
    j = enabled + 1
    while j < end and (not lines[j].strip() or _indent(lines[j]) > 2):
        if _is_ours(lines[j]):
            return text
        j += 1
    lines.insert(enabled + 1, f"    - {ITEM}")
    return nl.join(lines)


def disable(text: str) -> str:
    """Remove our item, and the ``plugins``/``enabled`` lines we added if they are empty."""
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(nl)
    top = _find_top(lines, "plugins")
    if top is None:
        return text
    end = _section(lines, top)
    kept = lines[: top + 1] + [ln for ln in lines[top + 1 : end] if not _is_ours(ln)]
    kept += lines[end:]
    # our marked keys go when nothing is under them any more
    changed = True
    while changed:
        changed = False
        for i, line in enumerate(kept):
            if not line.rstrip().endswith(MARK):
                continue
            depth = _indent(line)
            nxt = kept[i + 1] if i + 1 < len(kept) else ""
            if not nxt.strip() or _indent(nxt) <= depth:
                del kept[i]
                changed = True
                break
    return nl.join(kept)


def enabled(text: str) -> bool:
    return disable(text) != text
