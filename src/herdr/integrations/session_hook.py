"""The session hooks of ten agents, rendered from one shell frame at install time.

Copilot, Cursor, Devin, Droid, Grok, Kimi, Mastra Code, Qoder, Qwen and Antigravity run
the same program around a different ``main``: the env checks, the isolated interpreter,
payload reading, the report sender and the never-fail ending live once in
``session_hook.sh.in``; each agent's directory holds only its ``session_hook.part`` (the
comment and argument guard lines, then ``@@MAIN@@`` and its ``main``). Ids, versions,
sources and agent names come from the target table, so the file marker and the table
cannot disagree. Pure: text in, text out.
"""

from __future__ import annotations

from herdr.integrations.targets import Target

FRAME = "session_hook.sh.in"
PART = "session_hook.part"
_SPLIT = "@@MAIN@@\n"
# What the hook is installed as (qwen's name is herdr's).
_SCRIPT = {"qwen": "herdr-agent-session.sh"}


def script_name(target: str) -> str:
    return _SCRIPT.get(target, "herdr-agent-state.sh")


class HookTemplateError(ValueError):
    """A part file without its ``@@MAIN@@`` line (a packaging fault, not user input)."""


def render(frame: str, part: str, target: Target) -> str:
    """The installed script for ``target`` from the shared frame and its part."""
    preamble, sep, main = part.partition(_SPLIT)
    if not sep:
        raise HookTemplateError(f"{target.name}/{PART}: no {_SPLIT.strip()} line")
    values = {
        "{{ID}}": target.name,
        "{{VERSION}}": str(target.version),
        "{{SOURCE}}": target.source,
        "{{AGENT}}": target.agent,
        "{{PREAMBLE}}": preamble,
        "{{MAIN}}": main,
    }
    text = frame
    for token, value in values.items():
        text = text.replace(token, value)
    return text
