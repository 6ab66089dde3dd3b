"""What the TUI does in response to input: the :data:`Action` values (PURE).

The mode machine emits them, the app carries them out. Parameterless commands are
``Command(name)`` (constants such as :data:`SPLIT_RIGHT`, :data:`DETACH`); the rest
carry their argument (a direction, a 1-based index, the bytes for the pane).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from msgspec import Struct

from herdr.client.input import Mouse
from herdr.client.keynames import KeySpec
from herdr.client.prompt import Prompt

Mode = Literal["terminal", "prefix", "navigate", "help", "prompt", "resize", "copy"]
Direction = Literal["left", "right", "up", "down"]

CommandName = Literal[
    "split_right",
    "split_down",
    "new_tab",
    "next_tab",
    "previous_tab",
    "close_pane",
    "zoom",
    "detach",
    "toggle_sidebar",
    "help",
    "settings",
    "reload_config",
    "new_workspace",
    "rename_workspace",
    "close_workspace",
    "goto",
    "new_worktree",
    "open_worktree",
    "remove_worktree",
    "open_notification_target",
    "rename_tab",
    "close_tab",
    "move_tab_previous",
    "move_tab_next",
    "rename_pane",
    "edit_scrollback",
    "copy_mode",
    "resize_mode",
    "previous_workspace",
    "next_workspace",
    "previous_agent",
    "next_agent",
    "last_pane",
    "remote_image_paste",
    "cycle_machine",
    "navigate_select",
    "command_prompt",
    "command_palette",
]


class Command(Struct, frozen=True):
    """A parameterless UI command (split, detach, zoom…)."""

    name: CommandName


class SendBytes(Struct, frozen=True):
    """Bytes for the focused pane, exactly as the host terminal sent them."""

    data: bytes


class SendPaste(Struct, frozen=True):
    """A bracketed paste for the focused pane (the app re-brackets it if the pane
    enabled mode 2004)."""

    data: bytes


class MouseInput(Struct, frozen=True):
    """A mouse event; the app hit-tests it (focus, border drag, wheel, pass-through)."""

    event: Mouse


class HostFocus(Struct, frozen=True):
    """The host terminal gained or lost focus (feeds the server's seen/done logic)."""

    focused: bool


class ModeChanged(Struct, frozen=True):
    """The input mode changed (redraw the mode badge)."""

    mode: Mode


class FocusDir(Struct, frozen=True):
    direction: Direction


class SwapDir(Struct, frozen=True):
    direction: Direction


class ResizeDir(Struct, frozen=True):
    direction: Direction
    amount: float | None = None  # share of the split; None = the server's step


class PromptChanged(Struct, frozen=True):
    """The open prompt's line changed (redraw it)."""

    prompt: Prompt


class SubmitPrompt(Struct, frozen=True):
    """Enter in the prompt: the app sends the new name to the server."""

    prompt: Prompt


class CancelPrompt(Struct, frozen=True):
    """Esc in the prompt: nothing is sent (a search puts the cursor back)."""

    prompt: Prompt


class CopyKey(Struct, frozen=True):
    """A key pressed in copy mode: the app runs it through :mod:`herdr.client.copymode`
    (keys never reach the pane there)."""

    spec: KeySpec


class HelpEdit(Struct, frozen=True):
    """A key the settings panel uses (enter/space toggle, +/- and left/right step)."""

    key: str


class HelpScroll(Struct, frozen=True):
    """j/k or page keys in the help overlay: scroll it by ``step`` entries."""

    step: int


class CyclePane(Struct, frozen=True):
    step: int  # +1 next, -1 previous


class SwitchTab(Struct, frozen=True):
    index: int  # 1-based position in the active workspace


class SwitchWorkspace(Struct, frozen=True):
    index: int  # 1-based position in the sidebar


class FocusAgent(Struct, frozen=True):
    index: int  # 1-based position in the agent panel


class NavigateWorkspace(Struct, frozen=True):
    step: int  # move the navigate-mode selection up (-1) or down (+1)


class CustomCommand(Struct, frozen=True):
    """A ``[[keys.command]]`` entry."""

    type: Literal["popup", "pane", "shell", "plugin_action"]
    command: str
    description: str = ""
    width: int | str | None = None  # popups: cells or "NN%"
    height: int | str | None = None


class RunCommand(Struct, frozen=True):
    command: CustomCommand


Action: TypeAlias = (
    Command
    | HelpEdit
    | SendBytes
    | SendPaste
    | MouseInput
    | HostFocus
    | ModeChanged
    | FocusDir
    | SwapDir
    | ResizeDir
    | PromptChanged
    | SubmitPrompt
    | CancelPrompt
    | CopyKey
    | HelpScroll
    | CyclePane
    | SwitchTab
    | SwitchWorkspace
    | FocusAgent
    | NavigateWorkspace
    | RunCommand
)

SPLIT_RIGHT = Command("split_right")
SPLIT_DOWN = Command("split_down")
NEW_TAB = Command("new_tab")
DETACH = Command("detach")
ZOOM = Command("zoom")
CLOSE_PANE = Command("close_pane")
TOGGLE_SIDEBAR = Command("toggle_sidebar")
HELP = Command("help")


class EnterNavigate(Struct, frozen=True):
    """Bound to workspace_picker: the mode machine switches to navigate (never emitted)."""


class LeaveNavigate(Struct, frozen=True):
    """Bound to esc/q in navigate mode: back to terminal mode (never emitted)."""


Bound: TypeAlias = Action | EnterNavigate | LeaveNavigate
