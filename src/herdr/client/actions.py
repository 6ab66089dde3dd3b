"""What the TUI does in response to input: the :data:`Action` values (PURE).

The mode machine emits them, the app carries them out. Parameterless commands are
``Command(name)`` (constants such as :data:`SPLIT_RIGHT`, :data:`DETACH`); the rest
carry their argument (a direction, a 1-based index, the bytes for the pane).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

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


@dataclass(frozen=True, slots=True)
class Command:
    """A parameterless UI command (split, detach, zoom…)."""

    name: CommandName


@dataclass(frozen=True, slots=True)
class SendBytes:
    """Bytes for the focused pane, exactly as the host terminal sent them."""

    data: bytes


@dataclass(frozen=True, slots=True)
class SendPaste:
    """A bracketed paste for the focused pane (the app re-brackets it if the pane
    enabled mode 2004)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class MouseInput:
    """A mouse event; the app hit-tests it (focus, border drag, wheel, pass-through)."""

    event: Mouse


@dataclass(frozen=True, slots=True)
class HostFocus:
    """The host terminal gained or lost focus (feeds the server's seen/done logic)."""

    focused: bool


@dataclass(frozen=True, slots=True)
class ModeChanged:
    """The input mode changed (redraw the mode badge)."""

    mode: Mode


@dataclass(frozen=True, slots=True)
class FocusDir:
    direction: Direction


@dataclass(frozen=True, slots=True)
class SwapDir:
    direction: Direction


@dataclass(frozen=True, slots=True)
class ResizeDir:
    direction: Direction
    amount: float | None = None  # share of the split; None = the server's step


@dataclass(frozen=True, slots=True)
class PromptChanged:
    """The open prompt's line changed (redraw it)."""

    prompt: Prompt


@dataclass(frozen=True, slots=True)
class SubmitPrompt:
    """Enter in the prompt: the app sends the new name to the server."""

    prompt: Prompt


@dataclass(frozen=True, slots=True)
class CancelPrompt:
    """Esc in the prompt: nothing is sent (a search puts the cursor back)."""

    prompt: Prompt


@dataclass(frozen=True, slots=True)
class CopyKey:
    """A key pressed in copy mode: the app runs it through :mod:`herdr.client.copymode`
    (keys never reach the pane there)."""

    spec: KeySpec


@dataclass(frozen=True, slots=True)
class HelpEdit:
    """A key the settings panel uses (enter/space toggle, +/- and left/right step)."""

    key: str


@dataclass(frozen=True, slots=True)
class HelpScroll:
    """j/k or page keys in the help overlay: scroll it by ``step`` entries."""

    step: int


@dataclass(frozen=True, slots=True)
class CyclePane:
    step: int  # +1 next, -1 previous


@dataclass(frozen=True, slots=True)
class SwitchTab:
    index: int  # 1-based position in the active workspace


@dataclass(frozen=True, slots=True)
class SwitchWorkspace:
    index: int  # 1-based position in the sidebar


@dataclass(frozen=True, slots=True)
class FocusAgent:
    index: int  # 1-based position in the agent panel


@dataclass(frozen=True, slots=True)
class NavigateWorkspace:
    step: int  # move the navigate-mode selection up (-1) or down (+1)


@dataclass(frozen=True, slots=True)
class CustomCommand:
    """A ``[[keys.command]]`` entry."""

    type: Literal["popup", "pane", "shell", "plugin_action"]
    command: str
    description: str = ""
    width: int | str | None = None  # popups: cells or "NN%"
    height: int | str | None = None


@dataclass(frozen=True, slots=True)
class RunCommand:
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


@dataclass(frozen=True, slots=True)
class EnterNavigate:
    """Bound to workspace_picker: the mode machine switches to navigate (never emitted)."""


@dataclass(frozen=True, slots=True)
class LeaveNavigate:
    """Bound to esc/q in navigate mode: back to terminal mode (never emitted)."""


Bound: TypeAlias = Action | EnterNavigate | LeaveNavigate
