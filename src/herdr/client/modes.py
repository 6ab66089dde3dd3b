"""The input mode machine: terminal → prefix → action → terminal; navigate; help (PURE).

herdr-spec §1.3: in *terminal* mode keys go to the focused pane as the exact bytes
the host sent; after the prefix one key picks an action (the prefix twice sends a
literal prefix, anything unbound cancels quietly); *navigate* mode is persistent and
takes plain keys until ``esc``/``q``; *help* closes on any key; *resize* is persistent
too (``h/j/k/l`` and arrows move the focused pane's border, shifted by a bigger step);
*prompt* edits a one-line name (:mod:`herdr.client.prompt`) and nothing reaches a pane
until enter or esc; *copy* (``prefix+[``) hands every key to the app as
:class:`CopyKey` (:mod:`herdr.client.copymode` decides; the app leaves the mode).
Kitty key releases of keys we consumed are swallowed so a pane never sees half a key.
"""

from __future__ import annotations

from collections.abc import Iterable

from herdr.client.actions import (
    DETACH,
    HELP,
    Action,
    Bound,
    CancelPrompt,
    Command,
    CopyKey,
    Direction,
    EnterNavigate,
    HelpEdit,
    HelpScroll,
    HostFocus,
    LeaveNavigate,
    Mode,
    ModeChanged,
    MouseInput,
    PromptChanged,
    ResizeDir,
    SendBytes,
    SendPaste,
    SubmitPrompt,
)
from herdr.client.bindings import NAVIGATE_FIXED, Bindings, default_bindings
from herdr.client.input import MODIFIER_KEYS, SHIFT, Focus, InputEvent, Key, Mouse, Paste
from herdr.client.keynames import KeySpec, spec_of
from herdr.client.prompt import Prompt, edit

RESIZE_MODE = Command("resize_mode")
HELP_SCROLL = {"j": 1, "down": 1, "k": -1, "up": -1, "pagedown": 10, "space": 10, "pageup": -10}
COPY_MODE = Command("copy_mode")
BIG_RESIZE_STEP = 0.15  # shift+h/j/k/l: three of the server's default 0.05 steps


def _resize_keys() -> dict[KeySpec, ResizeDir | LeaveNavigate]:
    keys: dict[KeySpec, ResizeDir | LeaveNavigate] = {}
    pairs: tuple[tuple[Direction, str], ...] = (
        ("left", "h"),
        ("down", "j"),
        ("up", "k"),
        ("right", "l"),
    )
    for direction, letter in pairs:
        for name in (letter, direction):
            keys[KeySpec(name)] = ResizeDir(direction)
            keys[KeySpec(name, SHIFT)] = ResizeDir(direction, BIG_RESIZE_STEP)
    for name in ("esc", "q", "enter"):
        keys[KeySpec(name)] = LeaveNavigate()
    return keys


RESIZE_KEYS: dict[KeySpec, ResizeDir | LeaveNavigate] = _resize_keys()


class KeyMachine:
    """Input events → actions, tracking the mode (terminal → prefix → terminal…)."""

    def __init__(self, bindings: Bindings | None = None) -> None:
        self.bindings = bindings or default_bindings()
        self._mode: Mode = "terminal"
        self._swallowed: set[str] = set()  # keys whose press we consumed (kitty releases)
        # The bytes of the last key that ran a direct binding, as the host terminal sent
        # them: a command that gives its key back to the program (ctrl+v with no image)
        # sends these, so a pane under the kitty keyboard protocol gets its own encoding.
        self.key_raw = b""
        self._prompt: Prompt | None = None
        self._prompt_back: Mode = "terminal"  # the mode enter/esc return to
        self.help_edit_keys: frozenset[str] = frozenset()  # the settings panel's own keys

    @property
    def mode(self) -> Mode:
        return self._mode

    @property
    def prompt(self) -> Prompt | None:
        """The open prompt (only in prompt mode)."""
        return self._prompt

    def set_mode(self, mode: Mode) -> list[Action]:
        """Force a mode (e.g. the app leaves navigate on a click); reports the change."""
        if mode == self._mode:
            return []
        if mode != "prompt":
            self._prompt = None
        elif self._prompt is None:
            return []  # prompt mode needs a prompt: see open_prompt
        self._mode = mode
        return [ModeChanged(mode)]

    def open_prompt(self, prompt: Prompt, back: Mode = "terminal") -> list[Action]:
        """Start editing ``prompt``: keys and pastes go to it until enter or esc, which
        return to ``back`` (copy mode, for a search)."""
        self._prompt = prompt
        self._prompt_back = back
        if self._mode == "prompt":
            return [PromptChanged(prompt)]
        self._mode = "prompt"
        return [ModeChanged("prompt")]

    def handle_all(self, events: Iterable[InputEvent]) -> list[Action]:
        """Actions for many events, adjacent :class:`SendBytes` merged into one write."""
        out: list[Action] = []
        for event in events:
            for action in self.handle(event):
                if isinstance(action, SendBytes) and out and isinstance(out[-1], SendBytes):
                    out[-1] = SendBytes(out[-1].data + action.data)
                else:
                    out.append(action)
        return out

    def handle(self, event: InputEvent) -> list[Action]:
        if isinstance(event, Key):
            return self._key(event)
        if isinstance(event, Paste):
            if self._mode == "prompt":
                return self._edit(event)
            if self._mode == "copy":
                return []  # a paste never reaches a pane being read
            actions = self.set_mode("terminal")
            actions.append(SendPaste(event.data))
            return actions
        if isinstance(event, Mouse):
            return [MouseInput(event)]
        if isinstance(event, Focus):
            return [HostFocus(event.focused)]
        return []  # Unknown: replies and garbage never reach a pane

    def _key(self, event: Key) -> list[Action]:
        if self._mode == "prompt":
            return self._prompt_key(event)
        if event.kind == "repeat" and self._mode == "navigate":
            return self._navigate(event)  # holding j keeps moving
        if event.kind == "repeat" and self._mode == "resize":
            return self._resize(event)  # holding l keeps growing
        if event.kind == "repeat" and self._mode == "copy":
            return self._copy(event)  # holding k keeps scrolling
        if event.kind != "press":
            if event.key in self._swallowed:
                if event.kind == "release":
                    self._swallowed.discard(event.key)
                return []
            if self._mode == "terminal":
                return [SendBytes(event.raw)]
            return []
        if self._mode == "terminal":
            return self._terminal(event)
        if self._mode == "prefix":
            return self._prefix(event)
        if self._mode == "help":
            if event.key in MODIFIER_KEYS:
                return []
            self._swallowed.add(event.key)
            if event.key in self.help_edit_keys and not event.binding_mods:
                return [HelpEdit(event.key)]
            step = HELP_SCROLL.get(event.key) if not event.binding_mods else None
            if step is not None:
                return [HelpScroll(step)]
            return self.set_mode("terminal")  # any other key closes the help overlay
        if self._mode == "resize":
            return self._resize(event)
        if self._mode == "copy":
            return self._copy(event)
        return self._navigate(event)

    def _copy(self, event: Key) -> list[Action]:
        if event.key in MODIFIER_KEYS:
            return []
        self._swallowed.add(event.key)
        return [CopyKey(spec_of(event))]

    def _prompt_key(self, event: Key) -> list[Action]:
        if event.kind == "release":
            self._swallowed.discard(event.key)
            return []
        if event.key in MODIFIER_KEYS:
            return []
        self._swallowed.add(event.key)  # enter's release comes after the prompt closed
        return self._edit(event)

    def _edit(self, event: Key | Paste) -> list[Action]:
        if self._prompt is None:
            return self.set_mode("terminal")
        prompt, outcome = edit(self._prompt, event)
        if outcome == "submit":
            actions = self.set_mode(self._prompt_back)
            actions.append(SubmitPrompt(prompt))
            return actions
        if outcome == "cancel":
            actions = self.set_mode(self._prompt_back)
            actions.append(CancelPrompt(prompt))
            return actions
        if outcome == "edit":
            self._prompt = prompt
            return [PromptChanged(prompt)]
        return []

    def _resize(self, event: Key) -> list[Action]:
        if event.key in MODIFIER_KEYS:
            return []
        spec = spec_of(event)
        self._swallowed.add(event.key)
        if spec == self.bindings.prefix:
            return self.set_mode("prefix")
        bound = RESIZE_KEYS.get(spec)
        if bound is None:
            return []  # unbound: swallowed, never typed into a pane
        if isinstance(bound, LeaveNavigate):
            return self.set_mode("terminal")
        return [bound]

    def _terminal(self, event: Key) -> list[Action]:
        spec = spec_of(event)
        if spec == self.bindings.prefix:
            self._swallowed.add(event.key)
            return self.set_mode("prefix")
        bound = self.bindings.direct_keys.get(spec)
        if bound is not None:
            self._swallowed.add(event.key)
            self.key_raw = event.raw
            return self._run(bound, after="terminal")
        return [SendBytes(event.raw)]

    def _prefix(self, event: Key) -> list[Action]:
        if event.key in MODIFIER_KEYS:
            return []  # pressing shift on the way to `?` must not cancel the prefix
        spec = spec_of(event)
        self._swallowed.add(event.key)
        if spec == self.bindings.prefix:
            actions = self.set_mode("terminal")
            actions.append(SendBytes(event.raw))  # prefix twice: a literal prefix
            return actions
        bound = self.bindings.prefix_keys.get(spec)
        if bound is None:
            return self.set_mode("terminal")  # unbound (or esc): cancel quietly
        return self._run(bound, after="terminal")

    def _navigate(self, event: Key) -> list[Action]:
        if event.key in MODIFIER_KEYS:
            return []
        spec = spec_of(event)
        self._swallowed.add(event.key)
        if spec == self.bindings.prefix:
            return self.set_mode("prefix")
        bound = (
            self.bindings.navigate_keys.get(spec)
            or NAVIGATE_FIXED.get(spec)
            or self.bindings.prefix_keys.get(spec)
        )
        if bound is None:
            return []
        if isinstance(bound, EnterNavigate):  # prefix+w again toggles back
            return self.set_mode("terminal")
        if bound == Command("navigate_select") or bound == DETACH:
            return self._run(bound, after="terminal")
        return self._run(bound, after="navigate")

    def run(self, bound: Bound) -> list[Action]:
        """What pressing a key bound to ``bound`` does (the command palette runs its
        commands this way, so a mode command enters its mode)."""
        return self._run(bound, after="terminal")

    def _run(self, bound: Bound, *, after: Mode) -> list[Action]:
        if isinstance(bound, EnterNavigate):
            return self.set_mode("navigate")
        if bound == HELP:
            return self.set_mode("help")
        if bound == RESIZE_MODE:
            return self.set_mode("resize")
        if bound == COPY_MODE:
            actions = self.set_mode("copy")
            actions.append(bound)  # the app starts copy mode on the focused pane
            return actions
        if isinstance(bound, LeaveNavigate):
            return self.set_mode("terminal")
        actions = self.set_mode(after)
        actions.append(bound)
        return actions
