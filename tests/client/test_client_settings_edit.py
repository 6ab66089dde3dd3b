"""What each settings-panel key makes of a value (pure)."""

from __future__ import annotations

import pytest

from herdr.client.settings import UiSettings
from herdr.client.settings_edit import Step, stepped
from herdr.config.ui_edit import Value


@pytest.mark.parametrize(
    ("settings", "key", "step", "value"),
    [
        (UiSettings(), "mouse_capture", "toggle", False),
        (UiSettings(confirm_close=False), "confirm_close", "more", True),
        (UiSettings(), "tab_bar_position", "toggle", "bottom"),
        (UiSettings(tab_bar_position="bottom"), "tab_bar_position", "next", "top"),
        (UiSettings(), "sidebar_collapsed_mode", "less", "hidden"),
        (UiSettings(), "sidebar_width", "more", 27),
        (UiSettings(), "mouse_scroll_lines", "less", 2),
    ],
    ids=["bool", "bool-plus", "enum", "enum-wraps", "enum-back", "number-up", "number-down"],
)
def test_stepped(settings: UiSettings, key: str, step: Step, value: Value) -> None:
    assert stepped(settings, key, step) == value


@pytest.mark.parametrize(
    ("settings", "key", "step"),
    [
        (UiSettings(sidebar_width=80), "sidebar_width", "more"),
        (UiSettings(scroll_lines=1), "mouse_scroll_lines", "less"),
        (UiSettings(), "bell", "toggle"),
        (UiSettings(), "toast.herdr.position", "next"),
    ],
    ids=["above-max", "below-min", "not-simple", "nested"],
)
def test_refused(settings: UiSettings, key: str, step: Step) -> None:
    with pytest.raises(ValueError, match=key.split(".", maxsplit=1)[0]):
        stepped(settings, key, step)
