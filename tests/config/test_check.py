"""The pure config checker: where keys are, what is suggested, what each type accepts."""

from __future__ import annotations

import pytest

from herdr.config.check import check, key_lines, suggestion


def test_key_lines_follow_tables_and_quotes() -> None:
    text = (
        'onboarding = false\n[server]\nheadless_cols = 1\n"headless_rows" = 2\n'
        "[ui.sidebar.agents]  # comment\nrows = []\n[[keys.command]]\nkey = 'x'\n"
    )
    assert key_lines(text) == {
        "onboarding": 1,
        "server": 2,
        "server.headless_cols": 3,
        "server.headless_rows": 4,
        "ui.sidebar.agents": 5,
        "ui.sidebar.agents.rows": 6,
        "keys.command": 7,
        "keys.command.key": 8,
    }


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("server.headless_colz", "server.headless_cols"),
        ("ui.sidebar_widht", "ui.sidebar_width"),
        ("termnal", "terminal"),
        ("zzzzzz", None),
    ],
)
def test_suggestion(typed: str, meant: str | None) -> None:
    assert suggestion(typed) == meant


# (a TOML value line under its table, whether the checker accepts it)
VALUES = [
    pytest.param("[server]\nheadless_cols = 80", True, id="int"),
    pytest.param("[server]\nheadless_cols = true", False, id="bool-is-not-int"),
    pytest.param("[server]\nheadless_cols = 8.5", False, id="float-is-not-int"),
    pytest.param("[theme]\nname = \"nord\"", True, id="string"),
    pytest.param("[theme]\nname = 3", False, id="int-is-not-string"),
    pytest.param("[theme.custom]\naccent = \"#ff0000\"", True, id="color"),
    pytest.param("[experimental]\ncjk_ime_agents = [\"claude\"]", True, id="list-of-strings"),
    pytest.param("[experimental]\ncjk_ime_agents = [1]", False, id="list-of-ints"),
    pytest.param("[ui.sidebar.agents]\nrows = [[\"agent\"], []]", True, id="token-rows"),
    pytest.param("[ui.sidebar.agents]\nrows_by_agent = { x = [\"a\"] }", False,
                 id="table-of-flat-rows"),
    pytest.param("[terminal]\nnew_cwd = \"home\"", True, id="enum"),
    pytest.param("[terminal]\nnew_cwd = \"HOME\"", False, id="enum-case"),
    pytest.param("[server]\nheadless_cols = 1979-05-27", False, id="date"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "accepted"), VALUES)
def test_value_types(text: str, accepted: bool) -> None:
    problems = check(text + "\n")
    assert (problems == []) is accepted, problems
    assert all(p.severity == "error" for p in problems)
