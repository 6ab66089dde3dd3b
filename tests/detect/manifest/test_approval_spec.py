"""The ``approval`` table of a rule: accepted forms and every refusal (our extension)."""

from __future__ import annotations

import pytest

from herdr.detect.manifest import ManifestError, parse_manifest

GOOD_PATTERN = r"^\s*(?P<number>[1-9])\.\s+(?P<label>.+)$"


def _manifest(approval: str, *, state: str = "blocked") -> str:
    return (
        'id = "claude"\n'
        "[[rules]]\n"
        'id = "dialog"\n'
        f'state = "{state}"\n'
        'contains = ["do you want to proceed?"]\n'
        f"approval = {approval}\n"
    )


@pytest.mark.parametrize(
    ("approval", "question_lines", "keys"),
    [
        pytest.param(
            f"{{ option_pattern = '{GOOD_PATTERN}', keys = \"number\" }}",
            6,
            "number",
            id="defaults",
        ),
        pytest.param(
            f"{{ option_pattern = '{GOOD_PATTERN}', keys = \"number_enter\", "
            'question_region = "above_options(3)", region = "bottom_non_empty_lines(10)" }',
            3,
            "number_enter",
            id="all-fields",
        ),
        pytest.param(
            """{ option_pattern = '(?P<selected>›)?\\s*(?P<label>\\w.*)', keys = "arrows" }""",
            6,
            "arrows",
            id="arrows-without-number",
        ),
        pytest.param(
            """{ option_pattern = '(?P<label>\\w.*) \\((?P<key>\\w)\\)$', keys = "key" }""",
            6,
            "key",
            id="shortcut-key",
        ),
    ],
)
def test_accepted_tables(approval: str, question_lines: int, keys: str) -> None:
    rule = parse_manifest(_manifest(approval)).rules[0]
    assert rule.approval is not None
    assert rule.approval.question_lines == question_lines
    assert rule.approval.keys == keys


LONG = "a" * 600


@pytest.mark.parametrize(
    ("approval", "state", "message"),
    [
        pytest.param(
            f"{{ option_pattern = '{GOOD_PATTERN}', keys = \"number\" }}",
            "idle",
            "is not blocked",
            id="not-blocked",
        ),
        pytest.param(
            '{ keys = "number" }', "blocked", "missing field `option_pattern`", id="no-pattern"
        ),
        pytest.param(
            f"{{ option_pattern = '{GOOD_PATTERN}' }}",
            "blocked",
            "missing field `keys`",
            id="no-keys",
        ),
        pytest.param(
            f"{{ option_pattern = '{GOOD_PATTERN}', keys = \"mouse\" }}",
            "blocked",
            "approval.keys must be one of",
            id="bad-keys",
        ),
        pytest.param(
            f"{{ option_pattern = '{GOOD_PATTERN}', keys = 1 }}",
            "blocked",
            "expected a string",
            id="keys-not-string",
        ),
        pytest.param(
            "{ option_pattern = '(?P<number>[1-9])', keys = \"number\" }",
            "blocked",
            "named group `label`",
            id="no-label-group",
        ),
        pytest.param(
            "{ option_pattern = '(?P<label>.+)', keys = \"number\" }",
            "blocked",
            "named group `number`",
            id="number-mode-without-number",
        ),
        pytest.param(
            "{ option_pattern = '(?P<label>.+)', keys = \"key\" }",
            "blocked",
            "named group `key`",
            id="key-mode-without-key",
        ),
        pytest.param(
            "{ option_pattern = '(?P<label>[', keys = \"arrows\" }",
            "blocked",
            "option_pattern is invalid",
            id="bad-regex",
        ),
        pytest.param(
            f"{{ option_pattern = '(?P<label>{LONG})', keys = \"arrows\" }}",
            "blocked",
            "exceeds max length",
            id="too-long",
        ),
        pytest.param(
            f"{{ option_pattern = '{GOOD_PATTERN}', keys = \"number\", "
            'question_region = "above_options(0)" }',
            "blocked",
            "question_region must be",
            id="zero-question-lines",
        ),
        pytest.param(
            f'{{ option_pattern = \'{GOOD_PATTERN}\', keys = "number", question_region = "top" }}',
            "blocked",
            "question_region must be",
            id="bad-question-region",
        ),
        pytest.param(
            f'{{ option_pattern = \'{GOOD_PATTERN}\', keys = "number", region = "osc_title" }}',
            "blocked",
            "invalid region",
            id="osc-region",
        ),
        pytest.param(
            f'{{ option_pattern = \'{GOOD_PATTERN}\', keys = "number", region = "middle" }}',
            "blocked",
            "invalid region",
            id="unknown-region",
        ),
        pytest.param(
            f"{{ option_pattern = '{GOOD_PATTERN}', keys = \"number\", extra = 1 }}",
            "blocked",
            'unknown field "extra"',
            id="unknown-field",
        ),
        pytest.param('"number"', "blocked", "expected a table", id="not-a-table"),
    ],
)
def test_refused_tables(approval: str, state: str, message: str) -> None:
    with pytest.raises(ManifestError) as err:
        parse_manifest(_manifest(approval, state=state))
    assert message in str(err.value)
