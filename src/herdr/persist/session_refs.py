"""PURE rules for native session references: they are data, never options or shell text.

A session id reported by a hook ends up in an agent's argv when the session is
restored (``codex resume -- <id>``), typed into a fresh shell. An id such as
``--dangerously-bypass-approvals-and-sandbox`` must never get there as a flag, and
whitespace or control characters have no business in an id (they would split the
command or draw on the terminal). The same rules run when a hook reports the id
(``invalid_params``) and again when ``session.json`` is read back, since that file
may have been edited by hand or written by an older herdr.

Ids: 1..`SESSION_ID_MAX_CHARS` characters, no leading ``-``, no whitespace (any
Unicode space or line/paragraph separator), no control, format (bidi overrides,
zero-width), surrogate, private-use or unassigned characters. Paths follow the same
rules except that spaces are allowed (``/Users/me/My Sessions/x.jsonl``).
"""

from __future__ import annotations

import re
import unicodedata

from herdr.runtime.agent_state import SESSION_ID_MAX_CHARS, SESSION_PATH_MAX_CHARS

_SEPARATORS = frozenset({"Zs", "Zl", "Zp"})
_LINE_BREAKS = frozenset({"Zl", "Zp"})


def _codepoint(ch: str) -> str:
    return f"U+{ord(ch):04X}"


def _text_problem(value: str, what: str, limit: int, *, spaces_allowed: bool) -> str | None:
    if not value or len(value) > limit:
        return f"{what} must be 1..{limit} characters (got {len(value)})"
    if value.startswith("-"):
        return f"{what} must not start with '-' (it would be read as an option)"
    for ch in value:
        category = unicodedata.category(ch)
        if category.startswith("C"):
            return f"{what} must not contain control characters (found {_codepoint(ch)})"
        breaks = _LINE_BREAKS if spaces_allowed else _SEPARATORS
        if category in breaks or (not spaces_allowed and ch.isspace()):
            return f"{what} must not contain whitespace (found {_codepoint(ch)})"
    return None


def id_problem(value: str, what: str = "agent_session_id") -> str | None:
    """Why `value` cannot be a native session id, or None when it can."""
    return _text_problem(value, what, SESSION_ID_MAX_CHARS, spaces_allowed=False)


def path_problem(value: str, what: str = "agent_session_path") -> str | None:
    """Why `value` cannot be a native session file path, or None when it can (whether it
    is absolute and still exists is decided at restore)."""
    return _text_problem(value, what, SESSION_PATH_MAX_CHARS, spaces_allowed=True)


def may_be_an_option(item: str) -> bool:
    """An argv item an option parser could read as a flag (the last guard in `resume`)."""
    return item.startswith("-")


# A user kind's ids (docs/user-agents.md "Resume"): its resume template was written by
# the user, not reviewed by us, so an id must look like an id and nothing else.
USER_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,127}")


def user_id_problem(value: str, what: str = "agent_session_id") -> str | None:
    """Why `value` cannot be a user kind's session id, or None when it can."""
    problem = id_problem(value, what)
    if problem is None and not USER_SESSION_ID.fullmatch(value):
        problem = f"{what} of a user-defined agent must match {USER_SESSION_ID.pattern}"
    return problem
