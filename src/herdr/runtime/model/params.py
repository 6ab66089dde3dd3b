"""Request parameters as the model accepts them, and layout trees (PURE).

Each check raises `ModelError` with the spec's code (§3.6) before anything changes;
`parse_layout` turns a LayoutNode JSON tree (layout.apply) into a spec tree and answers
`invalid_layout` for anything wrong inside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from herdr.runtime import layout as lay
from herdr.runtime.layout import Direction, Leaf, Node, Split, SplitDirection
from herdr.runtime.model.entities import ModelError, PaneSpec, TabSeed
from herdr.vocab import ErrorCode

ZoomMode = Literal["toggle", "on", "off"]

DEFAULT_RESIZE_AMOUNT = 0.05
MAX_RESIZE_AMOUNT = 0.5
MAX_LAYOUT_PANES = 24
MAX_LAYOUT_DEPTH = 16

_SPLIT_DIRECTIONS: dict[str, SplitDirection] = {"right": "right", "down": "down"}
_DIRECTIONS: dict[str, Direction] = {"left": "left", "right": "right", "up": "up", "down": "down"}
_ZOOM_MODES: dict[str, ZoomMode] = {"toggle": "toggle", "on": "on", "off": "off"}


# --------------------------------------------------------------------------- values


def parse_split_direction(value: object) -> SplitDirection:
    if isinstance(value, str) and value in _SPLIT_DIRECTIONS:
        return _SPLIT_DIRECTIONS[value]
    raise ModelError(ErrorCode.INVALID_PARAMS, f"direction must be right or down, got {value!r}")


def parse_direction(value: object) -> Direction:
    if isinstance(value, str) and value in _DIRECTIONS:
        return _DIRECTIONS[value]
    raise ModelError(
        ErrorCode.INVALID_PARAMS, f"direction must be left, right, up or down, got {value!r}"
    )


def parse_ratio(value: object, *, default: float = lay.DEFAULT_RATIO) -> float:
    """A finite ratio, clamped like herdr (0.1..0.9); None means the default."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ModelError(ErrorCode.INVALID_RATIO, f"ratio must be a finite number, got {value!r}")
    return lay.clamp_ratio(float(value))


def parse_cwd(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith("/"):
        raise ModelError(ErrorCode.INVALID_PARAMS, f"cwd must be an absolute path, got {value!r}")
    return value


def parse_label(value: object) -> str | None:
    """Optional label: trimmed; blank means none."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ModelError(ErrorCode.INVALID_PARAMS, f"label must be a string, got {value!r}")
    return value.strip() or None


def parse_required_label(value: object) -> str:
    label = parse_label(value)
    if label is None:
        raise ModelError(ErrorCode.INVALID_PARAMS, "label must not be empty")
    return label


def parse_command(value: object) -> list[str] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list | tuple)
        or not value
        or not all(isinstance(arg, str) for arg in value)
    ):
        raise ModelError(ErrorCode.INVALID_PARAMS, "command must be a non-empty list of strings")
    return [str(arg) for arg in value]


def parse_env(value: object) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ModelError(ErrorCode.INVALID_ENV, "env must be an object of strings")
    env: dict[str, str] = {}
    for key, val in value.items():
        bad_key = not isinstance(key, str) or not key or "=" in key or "\0" in key
        if bad_key or not isinstance(val, str) or "\0" in val:
            raise ModelError(ErrorCode.INVALID_ENV, f"invalid env entry {key!r}")
        env[key] = val
    return env


def parse_amount(value: object) -> float:
    """Resize amount like herdr: non-finite/absent -> 0.05, absolute, at most 0.5."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return DEFAULT_RESIZE_AMOUNT
    return min(abs(float(value)), MAX_RESIZE_AMOUNT)


def parse_path(value: object) -> tuple[bool, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(s, bool) for s in value):
        raise ModelError(ErrorCode.INVALID_PARAMS, "path must be a list of booleans")
    return tuple(bool(step) for step in value)


# --------------------------------------------------------------------------- layout specs


def parse_layout(root: object) -> Node[PaneSpec]:
    """Validate a LayoutNode JSON tree (layout.apply) into a spec tree; `invalid_layout`."""
    count = [0]
    node = _parse_layout_node(root, 1, count)
    if count[0] > MAX_LAYOUT_PANES:
        raise ModelError(ErrorCode.INVALID_LAYOUT, f"layout has more than {MAX_LAYOUT_PANES} panes")
    return node


def _parse_layout_node(raw: object, depth: int, count: list[int]) -> Node[PaneSpec]:
    if depth > MAX_LAYOUT_DEPTH:
        raise ModelError(ErrorCode.INVALID_LAYOUT, f"layout depth exceeds {MAX_LAYOUT_DEPTH}")
    if not isinstance(raw, Mapping):
        raise ModelError(ErrorCode.INVALID_LAYOUT, "layout node must be an object")
    kind = raw.get("type")
    if kind == "pane":
        count[0] += 1
        if count[0] > MAX_LAYOUT_PANES:
            raise ModelError(
                ErrorCode.INVALID_LAYOUT, f"layout has more than {MAX_LAYOUT_PANES} panes"
            )
        return Leaf(_parse_layout_pane(raw))
    if kind != "split":
        raise ModelError(ErrorCode.INVALID_LAYOUT, f"unknown layout node type {kind!r}")
    direction = raw.get("direction")
    if direction not in _SPLIT_DIRECTIONS:
        raise ModelError(
            ErrorCode.INVALID_LAYOUT, f"split direction must be right or down, got {direction!r}"
        )
    ratio = raw.get("ratio")
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not math.isfinite(ratio):
        raise ModelError(ErrorCode.INVALID_LAYOUT, "split ratio must be a finite number")
    first = _parse_layout_node(raw.get("first"), depth + 1, count)
    second = _parse_layout_node(raw.get("second"), depth + 1, count)
    return Split(_SPLIT_DIRECTIONS[str(direction)], lay.clamp_ratio(float(ratio)), first, second)


def _parse_layout_pane(raw: Mapping[object, object]) -> PaneSpec:
    try:
        command = parse_command(raw.get("command"))
        env = parse_env(raw.get("env"))
        return PaneSpec(
            cwd=parse_cwd(raw.get("cwd")),
            label=parse_label(raw.get("label")),
            command=tuple(command) if command is not None else None,
            env=tuple(sorted(env.items())),
        )
    except ModelError as err:
        raise ModelError(ErrorCode.INVALID_LAYOUT, err.message) from err


def first_spec(node: Node[PaneSpec]) -> PaneSpec:
    while isinstance(node, Split):
        node = node.first
    return node.key


# --------------------------------------------------------------------------- restore


def check_restore(
    number: int, number_taken: bool, tabs: Sequence[TabSeed], active_tab: int | None
) -> None:
    """Reject a snapshot workspace that would break the model's invariants."""

    def bad(message: str) -> ModelError:
        return ModelError(ErrorCode.INVALID_PARAMS, message)

    if number < 1 or number_taken:
        raise bad(f"workspace number {number} is invalid or already in use")
    if not tabs:
        raise bad("a workspace needs at least one tab")
    tab_numbers = [t.number for t in tabs]
    if min(tab_numbers) < 1 or len(set(tab_numbers)) != len(tab_numbers):
        raise bad("tab numbers must be positive and unique")
    if active_tab is not None and active_tab not in tab_numbers:
        raise bad(f"active tab {active_tab} is not restored")
    seen: set[int] = set()
    for tab in tabs:
        numbers = [p.number for p in tab.panes]
        order = lay.leaves(tab.root)
        if sorted(numbers) != sorted(order) or len(set(order)) != len(order):
            raise bad(f"tab {tab.number}: layout leaves must match its panes")
        if min(numbers) < 1 or seen & set(numbers):
            raise bad(f"tab {tab.number}: pane numbers must be positive and unique")
        if tab.focused is not None and tab.focused not in numbers:
            raise bad(f"tab {tab.number}: focused pane {tab.focused} is not in the tab")
        seen |= set(numbers)


# --------------------------------------------------------------------------- operations


def parse_pane_spec(cwd: object, label: object, command: object, env: object) -> PaneSpec:
    """Launch parameters of one new pane (create/split/new tab)."""
    argv = parse_command(command)
    return PaneSpec(
        cwd=parse_cwd(cwd),
        label=parse_label(label),
        command=tuple(argv) if argv is not None else None,
        env=tuple(sorted(parse_env(env).items())),
    )


def parse_zoom_mode(value: object) -> ZoomMode:
    if isinstance(value, str) and value in _ZOOM_MODES:
        return _ZOOM_MODES[value]
    raise ModelError(ErrorCode.INVALID_PARAMS, f"mode must be toggle, on or off, got {value!r}")


def parse_split_ratio(value: object) -> float:
    """An exact split ratio (layout.set_split_ratio); the layout clamps it."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ModelError(ErrorCode.INVALID_RATIO, "ratio must be finite")
    return float(value)


def parse_insert_index(value: object, length: int) -> int:
    """A reorder position: before item `value` of `length` items (0..length)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelError(ErrorCode.INVALID_PARAMS, "insert_index must be an integer")
    if not 0 <= value <= length:
        raise ModelError(ErrorCode.INVALID_PARAMS, f"insert_index must be within 0..{length}")
    return value
