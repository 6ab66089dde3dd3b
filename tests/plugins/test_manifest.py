"""herdr-plugin.toml validation: every refusal names file:line and what is wrong."""

from __future__ import annotations

import pytest

from herdr.plugins import manifest as mf

HEAD = """id = "demo.plugin"
name = "Demo"
version = "1.2.3"
min_herdr_version = "0.9.0"
platforms = ["linux", "macos"]
"""

ACTION = """
[[actions]]
id = "open"
title = "Open"
command = ["echo", "hi"]
"""


def _parse(text: str) -> mf.Manifest:
    return mf.parse(text, "/p/herdr-plugin.toml")


def test_a_full_manifest_parses_to_the_schema_shapes() -> None:
    text = (
        HEAD
        + 'description = "d"\n'
        + ACTION
        + 'contexts = ["pane", "selection"]\n'
        + '\n[[events]]\non = "pane.agent_status_changed"\ncommand = ["notify"]\n'
        + '\n[[panes]]\nid = "diff"\ntitle = "Diff"\ncommand = ["git", "diff"]\n'
        + 'placement = "split"\nwidth = "40%"\nheight = 12\n'
        + '\n[[link_handlers]]\nid = "gh"\ntitle = "GitHub"\npattern = "^https://github"\n'
        + 'action = "open"\n'
        + '\n[[build]]\ncommand = ["make"]\n\n[[startup]]\ncommand = ["./boot"]\n'
    )
    got = _parse(text)
    assert got.plugin_id == "demo.plugin"
    assert got.warnings == []
    info = got.info
    assert info["actions"] == [
        {
            "id": "open",
            "title": "Open",
            "command": ["echo", "hi"],
            "contexts": ["pane", "selection"],
        }
    ]
    assert info["panes"][0] == {
        "id": "diff",
        "title": "Diff",
        "command": ["git", "diff"],
        "placement": "split",
        "width": "40%",
        "height": 12,
    }
    assert info["events"] == [{"on": "pane.agent_status_changed", "command": ["notify"]}]
    assert info["link_handlers"][0]["action"] == "open"
    assert info["build"] == [{"command": ["make"]}]
    assert info["startup"] == [{"command": ["./boot"]}]


def test_pane_placement_defaults_to_overlay() -> None:
    got = _parse(HEAD + '[[panes]]\nid = "v"\ntitle = "V"\ncommand = ["x"]\n')
    assert got.info["panes"][0]["placement"] == "overlay"


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        (HEAD.replace('platforms = ["linux", "macos"]\n', ""), "no 'platforms' declared"),
        (HEAD + '[[events]]\non = "pane.exploded"\ncommand = ["x"]\n', ":7: events[0].on"),
    ],
    ids=["no-platforms", "unknown-event"],
)
def test_warnings_do_not_refuse(text: str, warning: str) -> None:
    got = _parse(text)
    assert any(warning in w for w in got.warnings), got.warnings


CASES = [
    ("not-toml", "id = \n", 1, "invalid TOML"),
    ("missing-id", HEAD.replace('id = "demo.plugin"\n', ""), 1, "missing required key 'id'"),
    ("bad-id-chars", HEAD.replace("demo.plugin", "demo plugin"), 1, "invalid plugin id"),
    ("bad-id-slash", HEAD.replace("demo.plugin", "../etc"), 1, "invalid plugin id"),
    ("id-not-string", HEAD.replace('"demo.plugin"', "7"), 1, "must be a string, got an integer"),
    ("missing-name", HEAD.replace('name = "Demo"\n', ""), 1, "missing required key 'name'"),
    ("empty-name", HEAD.replace('"Demo"', '" "'), 2, "must not be empty"),
    ("bad-version", HEAD.replace('"1.2.3"', '"one"'), 3, "invalid version 'one'"),
    (
        "missing-min-version",
        HEAD.replace('min_herdr_version = "0.9.0"\n', ""),
        1,
        "missing required key 'min_herdr_version'",
    ),
    ("bad-min-version", HEAD.replace('"0.9.0"', '"soon"'), 4, "invalid version 'soon'"),
    ("newer-min-version", HEAD.replace('"0.9.0"', '"1.0.0"'), 4, "needs herdr 1.0.0"),
    ("bad-platform", HEAD.replace('"macos"]', '"beos"]'), 5, "unknown value 'beos'"),
    ("unknown-top-key", HEAD + "colour = 1\n", 6, "colour: unknown key"),
    ("unknown-action-key", HEAD + ACTION + "shell = true\n", 11, "actions[0].shell: unknown key"),
    ("action-id-dot", HEAD + ACTION.replace('"open"', '"a.b"'), 8, "no dots"),
    (
        "action-missing-title",
        HEAD + ACTION.replace('title = "Open"\n', ""),
        7,
        "missing required key 'title'",
    ),
    (
        "command-string",
        HEAD + ACTION.replace('["echo", "hi"]', '"echo hi"'),
        10,
        "must be an array of strings (argv)",
    ),
    ("command-empty", HEAD + ACTION.replace('["echo", "hi"]', "[]"), 10, "must name a program"),
    (
        "bad-context",
        HEAD + ACTION + 'contexts = ["window"]\n',
        11,
        "unknown value 'window'",
    ),
    (
        "duplicate-action",
        HEAD + ACTION + ACTION,
        13,
        "duplicate id 'open'",
    ),
    (
        "second-action-bad",
        HEAD + ACTION + ACTION.replace('"open"', '"other"').replace('["echo", "hi"]', "3"),
        15,
        "actions[1].command",
    ),
    (
        "bad-placement",
        HEAD + '[[panes]]\nid = "v"\ntitle = "V"\ncommand = ["x"]\nplacement = "float"\n',
        10,
        "unknown placement 'float'",
    ),
    (
        "bad-size",
        HEAD + '[[panes]]\nid = "v"\ntitle = "V"\ncommand = ["x"]\nwidth = "120%"\n',
        10,
        'cells (an integer) or "NN%"',
    ),
    (
        "zero-size",
        HEAD + '[[panes]]\nid = "v"\ntitle = "V"\ncommand = ["x"]\nheight = 0\n',
        10,
        "between 1 and 65535",
    ),
    (
        "handler-unknown-action",
        HEAD + '[[link_handlers]]\nid = "h"\ntitle = "H"\npattern = "x"\naction = "nope"\n',
        10,
        "no action 'nope'",
    ),
    (
        "handler-bad-regex",
        HEAD
        + ACTION
        + '[[link_handlers]]\nid = "h"\ntitle = "H"\npattern = "(["\naction = "open"\n',
        14,
        "invalid regex",
    ),
    ("events-missing-on", HEAD + '[[events]]\ncommand = ["x"]\n', 6, "missing required key 'on'"),
    ("actions-not-array", HEAD + "actions = 3\n", 6, "must be an array of tables"),
]


@pytest.mark.parametrize(
    ("text", "line", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_refusals_name_file_and_line(text: str, line: int, message: str) -> None:
    with pytest.raises(mf.ManifestError) as caught:
        _parse(text)
    assert caught.value.code == mf.INVALID_MANIFEST
    assert caught.value.message.startswith(f"/p/herdr-plugin.toml:{line}:"), caught.value.message
    assert message in caught.value.message
