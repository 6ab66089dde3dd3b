"""Keys of the TUI: names, bindings, actions and the mode machine — one import (PURE).

Modes (herdr-spec §1.3): *terminal* (keys go to the focused pane as the exact bytes
the host sent), *prefix* (after ``ctrl+b``: one action key, then back; the prefix
twice sends a literal prefix), *navigate* (persistent, plain keys; ``esc`` or ``q``
leaves) and *help* (the overlay; any key closes it). :class:`KeyMachine` turns
:mod:`herdr.client.input` events into :data:`Action` values; the app carries them
out. Bindings are the spec's defaults overridden by ``[keys]`` in config.toml.

Raw pass-through is only right while the host encodes keys the way the pane's program
expects: the app mirrors the focused pane's keyboard mode (kitty flags,
modifyOtherKeys) onto the host with :mod:`herdr.client.render`'s helpers, and the
machine recognises its own keys in every encoding.

The parts live in :mod:`~herdr.client.keynames`, :mod:`~herdr.client.actions`,
:mod:`~herdr.client.bindings` and :mod:`~herdr.client.modes`.
"""

from __future__ import annotations

from herdr.client.actions import (
    CLOSE_PANE,
    DETACH,
    HELP,
    NEW_TAB,
    SPLIT_DOWN,
    SPLIT_RIGHT,
    TOGGLE_SIDEBAR,
    ZOOM,
    Action,
    Command,
    CommandName,
    CustomCommand,
    CyclePane,
    Direction,
    FocusAgent,
    FocusDir,
    HostFocus,
    Mode,
    ModeChanged,
    MouseInput,
    NavigateWorkspace,
    ResizeDir,
    RunCommand,
    SendBytes,
    SendPaste,
    SwapDir,
    SwitchTab,
    SwitchWorkspace,
)
from herdr.client.bindings import (
    ACTION_NAMES,
    Binding,
    BindingError,
    Bindings,
    KeyConfigError,
    default_bindings,
    help_entries,
    load_bindings,
    parse_binding,
)
from herdr.client.keynames import (
    KeyNameError,
    KeySpec,
    format_key,
    normalize,
    parse_key,
    spec_of,
)
from herdr.client.modes import KeyMachine

__all__ = [
    "ACTION_NAMES",
    "CLOSE_PANE",
    "DETACH",
    "HELP",
    "NEW_TAB",
    "SPLIT_DOWN",
    "SPLIT_RIGHT",
    "TOGGLE_SIDEBAR",
    "ZOOM",
    "Action",
    "Binding",
    "BindingError",
    "Bindings",
    "Command",
    "CommandName",
    "CustomCommand",
    "CyclePane",
    "Direction",
    "FocusAgent",
    "FocusDir",
    "HostFocus",
    "KeyConfigError",
    "KeyMachine",
    "KeyNameError",
    "KeySpec",
    "Mode",
    "ModeChanged",
    "MouseInput",
    "NavigateWorkspace",
    "ResizeDir",
    "RunCommand",
    "SendBytes",
    "SendPaste",
    "SwapDir",
    "SwitchTab",
    "SwitchWorkspace",
    "default_bindings",
    "format_key",
    "help_entries",
    "load_bindings",
    "normalize",
    "parse_binding",
    "parse_key",
    "spec_of",
]
