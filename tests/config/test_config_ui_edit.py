"""Setting a ``[ui]`` value by a minimal textual edit (pure)."""

from __future__ import annotations

import tomllib

import pytest

from herdr.config.ui_edit import EditError, Value, set_ui_value

BASE = (
    "# my herdr config\n"
    "[ui]\n"
    "mouse_capture = true   # keep the mouse\n"
    "sidebar_width=26\n"
    "\n"
    "[ui.toast]\n"
    'delivery = "herdr"\n'
    "\n"
    "[keys]\n"
    'prefix = "ctrl+b"\n'
)


@pytest.mark.parametrize(
    ("text", "key", "value", "expected"),
    [
        (BASE, "mouse_capture", False, BASE.replace("= true   #", "= false   #")),
        (BASE, "sidebar_width", 30, BASE.replace("sidebar_width=26", "sidebar_width=30")),
        (
            BASE,
            "tab_bar_position",
            "bottom",
            BASE.replace("sidebar_width=26\n", 'sidebar_width=26\ntab_bar_position = "bottom"\n'),
        ),
        (
            '[keys]\nprefix = "ctrl+a"\n',
            "bell_on_attention",
            False,
            '[keys]\nprefix = "ctrl+a"\n\n[ui]\nbell_on_attention = false\n',
        ),
        ("", "confirm_close", False, "[ui]\nconfirm_close = false\n"),
        ("[ui]\n", "confirm_close", True, "[ui]\nconfirm_close = true\n"),
        (
            '[ui]\nstatus_indicators = "dots" # a # in a comment\n',
            "status_indicators",
            "symbols",
            '[ui]\nstatus_indicators = "symbols" # a # in a comment\n',
        ),
        (
            "[ui]\r\nmouse_capture = true\r\n",
            "mouse_capture",
            False,
            "[ui]\r\nmouse_capture = false\r\n",
        ),
    ],
    ids=[
        "bool-keeps-comment",
        "number-no-spaces",
        "added-after-last-ui-key",
        "no-ui-table",
        "empty-file",
        "empty-ui-table",
        "string-with-comment",
        "crlf",
    ],
)
def test_only_the_value_changes(text: str, key: str, value: Value, expected: str) -> None:
    out = set_ui_value(text, key, value)
    assert out == expected
    assert tomllib.loads(out)["ui"][key] == value


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[ui\nmouse_capture = true\n", "mouse_capture"),  # does not parse
        ("ui.mouse_capture = true\n", "mouse_capture"),  # dotted: not a plain [ui] line
        ("[ui]\n", "bad key"),
        ('[ui]\nmouse_capture = """\ntrue"""\n', "mouse_capture"),  # multi-line value
    ],
    ids=["broken-file", "dotted-key", "not-a-simple-key", "multi-line-value"],
)
def test_unsafe_edits_are_refused(text: str, key: str) -> None:
    with pytest.raises(EditError):
        set_ui_value(text, key, False)
