"""A one-line text prompt (rename a workspace, tab or pane): line editing (PURE).

The mode machine feeds every key and paste to :func:`edit` while the prompt is open;
the result says whether the user kept editing, submitted or cancelled. Keeping this a
function of (state, event) makes the editing rules a table in the tests, and keeps
the app's part to "send the label to the server".
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from herdr.client.input import ALT, CTRL, HYPER, META, SHIFT, SUPER, Key, Paste

PromptKind = Literal[
    "workspace", "tab", "pane", "search", "command", "confirm", "goto", "palette", "worktree"
]
_PICKERS = ("goto", "palette", "worktree")  # a list under the line: arrows move the choice
Outcome = Literal["edit", "submit", "cancel", "ignore"]

MAX_TEXT = 256  # a label longer than this is a paste accident, not a name
_COMMAND_MODS = CTRL | ALT | SUPER | HYPER | META


class Prompt(Struct, frozen=True):
    """What is being renamed and the line typed so far (``cursor`` indexes ``text``)."""

    kind: PromptKind
    target: str  # workspace, tab or pane id
    text: str = ""
    cursor: int = 0
    selected: bool = False  # the whole prefilled text is selected: typing replaces it
    heading: str = ""  # a title of its own (a confirmation's "close pane?")
    choice: int = -1  # the navigator's selected row; -1: the first match (after typing)

    @property
    def title(self) -> str:
        if self.heading:
            return self.heading
        if self.kind == "search":
            return "search"
        if self.kind == "command":
            return ":"
        if self.kind == "goto":
            return "go to"
        if self.kind == "palette":
            return "run"
        return f"rename {self.kind}"


def open_prompt(kind: PromptKind, target: str, current: str, *, select: bool = True) -> Prompt:
    """A prompt prefilled with the current name, cursor at its end and the name
    selected (as in a GUI rename): typing replaces it, an arrow key keeps it."""
    text = _clean(current)[:MAX_TEXT]
    return Prompt(kind, target, text, len(text), select and bool(text))


def _selection_edit(prompt: Prompt, event: Key) -> tuple[Prompt, Outcome] | None:
    """What a key does to a selected prefill; None: the key edits as usual (it types)."""
    key, mods = event.key, event.mods
    ctrl = mods & CTRL and not mods & (ALT | SUPER | HYPER | META)
    if key in ("backspace", "delete") or (ctrl and key in ("h", "d", "u", "w", "k")):
        return replace(prompt, text="", cursor=0, selected=False), "edit"
    if key in ("left", "home", "kp_home") or (ctrl and key == "a"):
        return replace(prompt, cursor=0, selected=False), "edit"
    if key in ("right", "end", "kp_end") or (ctrl and key == "e"):
        return replace(prompt, cursor=len(prompt.text), selected=False), "edit"
    return None


def edit(prompt: Prompt, event: Key | Paste) -> tuple[Prompt, Outcome]:
    """Apply one key or paste; ``ignore`` means nothing changed (no redraw needed)."""
    if prompt.kind == "confirm":
        return _confirm(prompt, event)
    if isinstance(event, Paste):
        return _insert(prompt, event.text)
    if event.kind == "release":
        return prompt, "ignore"
    key, mods = event.key, event.mods
    ctrl = mods & CTRL and not mods & (ALT | SUPER | HYPER | META)
    if key in ("enter", "kp_enter") and not mods & _COMMAND_MODS:
        return replace(prompt, selected=False), "submit"
    if key == "esc" or (ctrl and key in ("c", "g")):
        return replace(prompt, selected=False), "cancel"
    if prompt.kind in _PICKERS:
        step = _GOTO_STEPS.get(key) if not mods & ~SHIFT else None
        if ctrl and key in ("p", "n"):
            step = -1 if key == "p" else 1
        if key == "tab" and mods & SHIFT:
            step = -1
        if step is not None:
            return replace(prompt, choice=max(0, prompt.choice + step)), "edit"
    if prompt.selected:
        done = _selection_edit(prompt, event)
        if done is not None:
            return done
    text, cursor = prompt.text, prompt.cursor
    if key == "backspace" or (ctrl and key == "h"):
        if cursor == 0:
            return prompt, "ignore"
        return _set(prompt, text[: cursor - 1] + text[cursor:], cursor - 1)
    if key == "delete" or (ctrl and key == "d"):
        if cursor >= len(text):
            return prompt, "ignore"
        return _set(prompt, text[:cursor] + text[cursor + 1 :], cursor)
    if ctrl and key == "u":
        return _set(prompt, "", 0)
    if ctrl and key == "k":
        return _set(prompt, text[:cursor], cursor)
    if ctrl and key == "w":
        start = len(text[:cursor].rstrip()) if cursor else 0
        start = text.rfind(" ", 0, start) + 1
        return _set(prompt, text[:start] + text[cursor:], start)
    if key == "left":  # not ctrl+b: that is the prefix, pressed here it does nothing
        return _set(prompt, text, cursor - 1)
    if key == "right":
        return _set(prompt, text, cursor + 1)
    if key in ("home", "kp_home") or (ctrl and key == "a"):
        return _set(prompt, text, 0)
    if key in ("end", "kp_end") or (ctrl and key == "e"):
        return _set(prompt, text, len(text))
    typed = event.text or _key_text(key, mods)
    if typed and not mods & _COMMAND_MODS:
        return _insert(prompt, typed)
    return prompt, "ignore"


_GOTO_STEPS = {"up": -1, "down": 1, "tab": 1, "pageup": -10, "pagedown": 10}


def _confirm(prompt: Prompt, event: Key | Paste) -> tuple[Prompt, Outcome]:
    """A y/n question, as tmux's confirm-before: ``y`` confirms, any other key keeps."""
    if isinstance(event, Paste) or event.kind == "release":
        return prompt, "ignore"
    if event.key == "y" and not event.mods & (_COMMAND_MODS | SHIFT):
        return prompt, "submit"
    return prompt, "cancel"


def _key_text(key: str, mods: int) -> str:
    """What a text key types when the host reports no text (kitty "all keys as escape
    codes" without "associated text", mirrored from the focused pane)."""
    if key == "space":
        return " "
    if len(key) == 1 and key.isprintable():
        return key.upper() if mods & SHIFT else key
    return ""


def _insert(prompt: Prompt, typed: str) -> tuple[Prompt, Outcome]:
    piece = _clean(typed)
    room = MAX_TEXT - len(prompt.text)
    piece = piece[: max(0, room)]
    if not piece:
        return prompt, "ignore"
    if prompt.selected:  # typing over the selected prefill replaces it
        prompt = replace(prompt, text="", cursor=0, selected=False)
    text, cursor = prompt.text, prompt.cursor
    return _set(prompt, text[:cursor] + piece + text[cursor:], cursor + len(piece))


def _set(prompt: Prompt, text: str, cursor: int) -> tuple[Prompt, Outcome]:
    cursor = max(0, min(len(text), cursor))
    if text == prompt.text and cursor == prompt.cursor:
        return prompt, "ignore"
    choice = prompt.choice if text == prompt.text else -1  # new filter: first match
    return replace(prompt, text=text, cursor=cursor, choice=choice), "edit"


def _clean(text: str) -> str:
    """One line of printable text: line breaks and tabs become spaces, other controls go."""
    out = []
    for ch in text.replace("\r\n", " "):
        if ch in "\r\n\t":
            out.append(" ")
        elif ch.isprintable():
            out.append(ch)
    return "".join(out)
