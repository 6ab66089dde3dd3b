"""The format-preserving JSON editor: parse errors with positions, splices that keep bytes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.integrations import json_edit as je
from herdr.integrations import plugin_list


@pytest.mark.parametrize(
    ("text", "jsonc", "line", "column", "what"),
    [
        pytest.param('{"a": 1,}', False, 1, 9, "trailing comma", id="trailing-comma-object"),
        pytest.param("[1, 2,]", False, 1, 7, "trailing comma", id="trailing-comma-array"),
        pytest.param('{\n  // x\n  "a": 1}', False, 2, 3, "comments", id="line-comment"),
        pytest.param('{"a": /* x */ 1}', False, 1, 7, "comments", id="block-comment"),
        pytest.param('{"a": 1, "a": 2}', True, 1, 10, "duplicate key", id="duplicate-key"),
        pytest.param('{"a": tru}', False, 1, 7, "unexpected", id="bad-literal"),
        pytest.param('{"a": "x', False, 1, 7, "unterminated string", id="unterminated"),
        pytest.param("{'a': 1}", False, 1, 2, "expected a string key", id="single-quotes"),
        pytest.param('{"a": 1} x', False, 1, 10, "after the JSON value", id="trailing-text"),
        pytest.param("/* open", True, 1, 1, "unterminated comment", id="open-comment"),
    ],
)
def test_parse_errors_name_the_position(
    text: str, jsonc: bool, line: int, column: int, what: str
) -> None:
    with pytest.raises(je.JsonEditError) as caught:
        je.parse(text, jsonc=jsonc)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert what in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"n": 1e+02, "s": "\\u0061", "t": true, "z": null}', id="spellings"),
        pytest.param('{\n\t"a": [1, 2],\n\t"b": {}\n}\n', id="tabs"),
        pytest.param('// c\n{"a": [1,], /* x */ "b": 2,}\n', id="jsonc"),
    ],
)
def test_parse_matches_json_values(text: str) -> None:
    tree = je.parse(text, jsonc=True)
    stripped = text.replace("// c\n", "").replace("/* x */ ", "").replace(",]", "]")
    assert tree.value == json.loads(stripped.replace(",}", "}"))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param('{"a": [1]}', '{"a": [1, 2]}', id="compact-stays-compact"),
        pytest.param('{"a": [1,2]}', '{"a": [1,2,2]}', id="compact-keeps-separator"),
        pytest.param(
            '{\n  "a": [\n    1\n  ]\n}\n', '{\n  "a": [\n    1,\n    2\n  ]\n}\n', id="multiline"
        ),
        pytest.param(
            '{\r\n  "a": []\r\n}\r\n', '{\r\n  "a": [\r\n    2\r\n  ]\r\n}\r\n', id="crlf-empty"
        ),
        pytest.param('{\n\t"a": [\n\t\t1\n\t]\n}', '{\n\t"a": [\n\t\t1,\n\t\t2\n\t]\n}', id="tabs"),
    ],
)
def test_append_item_follows_the_layout(before: str, after: str) -> None:
    tree = je.parse(before)
    array = tree.members[0].node
    assert je.append_item(before, array, 2) == after


@pytest.mark.parametrize(
    ("before", "index", "after"),
    [
        pytest.param("[1, 2, 3]", 1, "[1, 3]", id="middle-compact"),
        pytest.param("[1, 2, 3]", 2, "[1, 2]", id="last-compact"),
        pytest.param("[1]", 0, "[]", id="only"),
        pytest.param("[\n  1,\n  2\n]", 0, "[\n  2\n]", id="first-line"),
        pytest.param("[\n  1, // one\n  2\n]", 1, "[\n  1 // one\n]", id="keeps-comment"),
    ],
)
def test_remove_child_takes_its_comma_and_line(before: str, index: int, after: str) -> None:
    assert je.remove_child(before, je.parse(before, jsonc=True), index) == after


def test_plugin_list_tuple_counts_and_is_removable() -> None:
    text = '{\n  "plugin": [\n    ["./herdr-tui-session.js", {"x": 1}],\n    "./mine.js"\n  ]\n}\n'
    assert plugin_list.has(text, "./herdr-tui-session.js")
    assert plugin_list.add(text, "./herdr-tui-session.js") == text
    removed = plugin_list.remove(text, "./herdr-tui-session.js")
    assert json.loads(removed) == {"plugin": ["./mine.js"]}
    assert (
        plugin_list.remove('{"plugin": ["./herdr-tui-session.js"]}', "./herdr-tui-session.js")
        == "{}"
    )


def test_tab_indented_settings_get_a_tab_indented_entry() -> None:
    from herdr.integrations import hook_config

    command = "bash '/h/a b.sh' session"
    group = {"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": 10}]}
    plan = hook_config.HookPlan({"SessionStart": group}, frozenset({command}))
    text = '{\n\t"theme": "dark mode"\n}\n'
    after = hook_config.install(text, plan)
    assert '\n\t\t"SessionStart": [\n\t\t\t{\n\t\t\t\t"matcher": "*",' in after
    assert json.loads(after)["hooks"]["SessionStart"] == [group]
    assert hook_config.uninstall(after, plan) == text


def test_append_after_a_trailing_line_comment_keeps_it_on_its_line() -> None:
    text = '{\n  "plugin": [\n    "./mine.js" // keep me\n  ]\n}\n'
    after = plugin_list.add(text, "./herdr-tui-session.js")
    assert after == (
        '{\n  "plugin": [\n    "./mine.js", // keep me\n    "./herdr-tui-session.js"\n  ]\n}\n'
    )
    assert plugin_list.remove(after, "./herdr-tui-session.js") == text


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_python_only_number_spellings_are_refused(token: str) -> None:
    with pytest.raises(je.JsonEditError, match="unexpected"):
        je.parse(f'{{"a": {token}}}')


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=8))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)
_USER_HOOK = st.fixed_dictionaries(
    {"type": st.just("command"), "command": st.text(min_size=1, max_size=10)}
)


@settings(max_examples=150, deadline=None)
@given(
    doc=st.dictionaries(st.text(max_size=6).filter(lambda k: k != "hooks"), _VALUES, max_size=4),
    user_events=st.dictionaries(
        st.sampled_from(["SessionStart", "Stop", "PreToolUse"]),
        st.lists(
            st.fixed_dictionaries({"hooks": st.lists(_USER_HOOK, min_size=1, max_size=2)}),
            min_size=1,
            max_size=2,
        ),
        max_size=2,
    ),
    indent=st.sampled_from([None, 2, 4, "\t"]),
    crlf=st.booleans(),
)
def test_install_uninstall_round_trips_any_settings(
    doc: dict[str, object], user_events: dict[str, object], indent: int | str | None, crlf: bool
) -> None:
    """Whatever the user's file holds and however it is laid out: install adds exactly our
    entry and changes nothing else; uninstall gives the bytes back."""
    from herdr.integrations import hook_config

    command = "bash '/h/.claude/hooks/herdr-agent-state.sh' session"
    group = {"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": 10}]}
    plan = hook_config.HookPlan({"SessionStart": group}, frozenset({command}))
    value = {**doc, "hooks": user_events} if user_events else doc
    text = json.dumps(value, indent=indent, ensure_ascii=False) + "\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    after = hook_config.install(text, plan)
    parsed = json.loads(after)
    assert parsed["hooks"]["SessionStart"][-1] == group or group in parsed["hooks"]["SessionStart"]
    assert {k: v for k, v in parsed.items() if k != "hooks"} == doc
    assert hook_config.install(after, plan) == after
    assert hook_config.uninstall(after, plan) == text
