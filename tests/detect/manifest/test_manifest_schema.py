"""TOML schema: unknown keys at every level, types, required fields (detection-spec §4.1–4.2)."""

from __future__ import annotations

import pytest

from herdr.detect.manifest import ManifestError, parse_manifest

RULE = '[[rules]]\nid = "r"\ncontains = ["x"]\n'


def test_minimal_manifest_defaults() -> None:
    manifest = parse_manifest('id = "t"\n' + RULE)
    assert manifest.id == "t"
    assert manifest.version is None
    assert manifest.min_engine_version is None
    assert manifest.aliases == ()
    rule = manifest.rules[0]
    assert (rule.state, rule.effective_state, rule.priority, rule.region) == (
        None,
        "unknown",
        0,
        "whole_recent",
    )
    assert not (rule.visible_idle or rule.visible_blocker or rule.visible_working)
    assert not rule.skip_state_update


def test_all_fields_are_read() -> None:
    manifest = parse_manifest(
        'id = "claude"\nversion = " 2026.08.21.1 "\nmin_engine_version = 3\n'
        'updated_at = "2026-08-21T00:00:00Z"\naliases = ["claude-code"]\n'
        '[[rules]]\nid = "r"\nstate = "idle"\npriority = -5\nregion = " bottom_lines(2) "\n'
        "visible_idle = true\nvisible_blocker = true\nvisible_working = true\n"
        'contains = ["A"]\nregex = ["b"]\nline_regex = ["c"]\n'
        'all = [{ contains = ["d"] }]\nany = [{ contains = ["e"] }, { regex = ["f"] }]\n'
        'not = [{ line_regex = ["g"] }]\n'
    )
    assert manifest.version == "2026.08.21.1"  # trimmed, as written otherwise
    assert manifest.min_engine_version == 3
    assert manifest.aliases == ("claude-code",)
    rule = manifest.rules[0]
    assert rule.region == " bottom_lines(2) "  # raw (explain shows it untrimmed)
    assert rule.region_spec.spec == "bottom_lines(2)"
    assert (rule.contains, rule.regex, rule.line_regex) == (("A",), ("b",), ("c",))
    assert (rule.all_count, rule.any_count, rule.not_count) == (1, 2, 1)
    assert rule.gate.contains == ("a",)  # lower-cased at load time


def test_rules_can_be_an_inline_array() -> None:
    manifest = parse_manifest('id = "t"\nrules = [{ id = "r", contains = ["x"] }]\n')
    assert [r.id for r in manifest.rules] == ["r"]


UNKNOWN_KEYS = [
    ("top-level", 'id = "t"\nname = "x"\n' + RULE, 'unknown field "name" in manifest'),
    ("rule", 'id = "t"\n' + RULE + 'contain = ["typo"]\n', 'unknown field "contain" in rule'),
    (
        "rule-gate-keys-only",
        'id = "t"\n' + RULE + 'description = "x"\n',
        'unknown field "description" in rule',
    ),
    (
        "gate",
        'id = "t"\n' + RULE + 'any = [{ contains = ["a"], state = "idle" }]\n',
        'unknown field "state" in gate `rules[0].any[0]`',
    ),
    (
        "nested-gate",
        'id = "t"\n' + RULE + 'not = [{ all = [{ contains = ["a"], region = "x" }] }]\n',
        'unknown field "region" in gate `rules[0].not[0].all[0]`',
    ),
]


@pytest.mark.parametrize(
    ("text", "message"), [u[1:] for u in UNKNOWN_KEYS], ids=[u[0] for u in UNKNOWN_KEYS]
)
def test_unknown_keys_are_rejected(text: str, message: str) -> None:
    with pytest.raises(ManifestError) as err:
        parse_manifest(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


WRONG_TYPES = [
    ("id-int", "id = 1\n" + RULE, "`id`"),
    ("version-int", 'id = "t"\nversion = 1\n' + RULE, "`version`"),
    ("min-engine-string", 'id = "t"\nmin_engine_version = "3"\n' + RULE, "`min_engine_version`"),
    ("min-engine-bool", 'id = "t"\nmin_engine_version = true\n' + RULE, "`min_engine_version`"),
    ("min-engine-negative", 'id = "t"\nmin_engine_version = -1\n' + RULE, "out of range"),
    ("min-engine-too-big", 'id = "t"\nmin_engine_version = 4294967296\n' + RULE, "out of range"),
    ("updated-at-date", 'id = "t"\nupdated_at = 2026-08-21\n' + RULE, "`updated_at`"),
    ("aliases-string", 'id = "t"\naliases = "x"\n' + RULE, "`aliases`"),
    ("aliases-items", 'id = "t"\naliases = [1]\n' + RULE, "`aliases[0]`"),
    ("rules-table", 'id = "t"\n[rules]\nid = "r"\n', "`rules`"),
    ("rules-items", 'id = "t"\nrules = [1]\n', "`rules[0]`"),
    ("rule-id-int", 'id = "t"\n[[rules]]\nid = 3\ncontains = ["x"]\n', "`rules[0].id`"),
    ("state-bad-variant", 'id = "t"\n' + RULE + 'state = "done"\n', 'unknown variant "done"'),
    ("state-int", 'id = "t"\n' + RULE + "state = 1\n", "`rules[0].state`"),
    ("priority-string", 'id = "t"\n' + RULE + 'priority = "1"\n', "`rules[0].priority`"),
    ("priority-float", 'id = "t"\n' + RULE + "priority = 1.5\n", "`rules[0].priority`"),
    ("priority-above-i32", 'id = "t"\n' + RULE + "priority = 2147483648\n", "out of range"),
    ("priority-below-i32", 'id = "t"\n' + RULE + "priority = -2147483649\n", "out of range"),
    ("region-int", 'id = "t"\n' + RULE + "region = 3\n", "`rules[0].region`"),
    ("visible-string", 'id = "t"\n' + RULE + 'visible_idle = "yes"\n', "visible_idle"),
    ("skip-int", 'id = "t"\n' + RULE + "skip_state_update = 1\n", "skip_state_update"),
    ("contains-string", 'id = "t"\n[[rules]]\nid = "r"\ncontains = "x"\n', "contains`"),
    ("regex-items", 'id = "t"\n[[rules]]\nid = "r"\nregex = [1]\n', "`rules[0].regex[0]`"),
    ("any-strings", 'id = "t"\n' + RULE + 'any = ["x"]\n', "`rules[0].any[0]`"),
    (
        "gate-contains",
        'id = "t"\n' + RULE + "all = [{ contains = [true] }]\n",
        "all[0].contains[0]",
    ),
]


@pytest.mark.parametrize(
    ("text", "fragment"), [w[1:] for w in WRONG_TYPES], ids=[w[0] for w in WRONG_TYPES]
)
def test_wrong_types_are_rejected(text: str, fragment: str) -> None:
    with pytest.raises(ManifestError) as err:
        parse_manifest(text)
    assert fragment in str(err.value)


def test_bounds_of_integer_fields_are_accepted() -> None:
    manifest = parse_manifest(
        'id = "t"\nmin_engine_version = 4294967295\n'
        '[[rules]]\nid = "hi"\npriority = 2147483647\ncontains = ["x"]\n'
        '[[rules]]\nid = "lo"\npriority = -2147483648\ncontains = ["x"]\n'
    )
    assert [r.priority for r in manifest.rules] == [2**31 - 1, -(2**31)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (RULE, "missing field `id`"),
        ('id = "t"\n[[rules]]\ncontains = ["x"]\n', "missing field `id` in rule `rules[0]`"),
        ('id = "t"\nversion = "2026.06.alpha"\n' + RULE, "invalid manifest version"),
        ('id = "t"\nversion = ""\n' + RULE, "invalid manifest version"),
        ('id = "t"\n[[rules]\n', "TOML parse error"),
        ('id = "t"\nid = "u"\n', "TOML parse error"),
    ],
    ids=[
        "missing-id",
        "missing-rule-id",
        "bad-version",
        "empty-version",
        "syntax",
        "duplicate-key",
    ],
)
def test_required_fields_and_syntax(text: str, message: str) -> None:
    with pytest.raises(ManifestError) as err:
        parse_manifest(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
