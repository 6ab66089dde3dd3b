"""Validation limits and rules of detection-spec §4.3: each at its bound and one past it."""

from __future__ import annotations

import pytest

from herdr.detect.manifest import (
    DetectionInput,
    ManifestCompileError,
    ManifestError,
    evaluate,
    parse_manifest,
)


def rule(rule_id: str = "r", body: str = 'contains = ["x"]') -> str:
    return f'[[rules]]\nid = "{rule_id}"\n{body}\n'


def toml(*rules: str, header: str = 'id = "t"\n') -> str:
    return header + "".join(rules)


def nested_all(levels: int) -> str:
    """A rule whose root gate has ``levels`` nested ``all`` gates below it."""
    gate = '{ contains = ["x"] }'
    for _ in range(levels - 1):
        gate = f'{{ contains = ["x"], all = [{gate}] }}'
    return f'contains = ["x"]\nall = [{gate}]'


def nested_not(levels: int) -> str:
    gate = '{ contains = ["x"] }'
    for _ in range(levels - 1):
        gate = f"{{ not = [{gate}] }}"
    return f'contains = ["x"]\nnot = [{gate}]'


def matchers(n: int, width: int = 1) -> str:
    return ", ".join(f'"{k:0{width}d}"' for k in range(n))


VALID = [
    ("one-rule", toml(rule())),
    ("128-rules", toml(*(rule(f"r{k}") for k in range(128)))),
    ("depth-8", toml(rule(body=nested_all(8)))),
    ("not-depth-8", toml(rule(body=nested_not(8)))),
    ("512-gates", toml(rule(body="any = [" + ", ".join(['{ contains = ["x"] }'] * 511) + "]"))),
    ("32-matchers", toml(rule(body=f"contains = [{matchers(32)}]"))),
    (
        "32-mixed-matchers",
        toml(
            rule(
                body=f"contains = [{matchers(10)}]\nregex = [{matchers(11)}]\n"
                f"line_regex = [{matchers(11)}]"
            )
        ),
    ),
    ("1024-matchers", toml(*(rule(f"r{k}", f"contains = [{matchers(32)}]") for k in range(32)))),
    ("512-chars", toml(rule(body='contains = ["' + "é" * 512 + '"]'))),
    ("512-char-regex", toml(rule(body="regex = ['" + "a" * 512 + "']"))),
    (
        "skip-with-unknown",
        toml(rule(body='state = "unknown"\nskip_state_update = true\ncontains = ["x"]')),
    ),
    (
        "not-with-only-not",
        toml(rule(body='contains = ["x"]\nnot = [{ not = [{ contains = ["y"] }] }]')),
    ),
    (
        "top-lines-engine-3",
        toml(
            rule(body='region = "top_non_empty_lines(1)"\ncontains = ["x"]'),
            header='id = "t"\nmin_engine_version = 3\n',
        ),
    ),
    ("top-lines-no-engine", toml(rule(body='region = "top_non_empty_lines(1)"\ncontains = ["x"]'))),
    ("empty-needle", toml(rule(body='contains = [""]'))),
    ("any-only", toml(rule(body='any = [{ contains = ["x"] }]'))),
    ("all-only", toml(rule(body='all = [{ regex = ["x"] }]'))),
]


@pytest.mark.parametrize("text", [v[1] for v in VALID], ids=[v[0] for v in VALID])
def test_valid_at_the_bound(text: str) -> None:
    parse_manifest(text)


INVALID = [
    ("no-rules", toml(), "manifest must contain at least one rule"),
    ("empty-rules-array", toml("rules = []\n"), "manifest must contain at least one rule"),
    (
        "129-rules",
        toml(*(rule(f"r{k}") for k in range(129))),
        "manifest contains 129 rules, max is 128",
    ),
    ("blank-id", toml(rule(" \t")), "manifest rule id must not be empty"),
    ("ideographic-space-id", toml(rule("\u3000")), "manifest rule id must not be empty"),
    (
        "skip-without-state",
        toml(rule(body='skip_state_update = true\ncontains = ["x"]')),
        'rule r uses skip_state_update without state = "unknown"',
    ),
    (
        "skip-with-idle",
        toml(rule(body='state = "idle"\nskip_state_update = true\ncontains = ["x"]')),
        'rule r uses skip_state_update without state = "unknown"',
    ),
    (
        "skip-with-visible",
        toml(
            rule(
                body='state = "unknown"\nskip_state_update = true\nvisible_blocker = true\n'
                'contains = ["x"]'
            )
        ),
        "rule r uses skip_state_update with visible state evidence",
    ),
    (
        "invalid-region",
        toml(rule(body='region = " bogus "\ncontains = ["x"]')),
        "rule r uses invalid region: bogus",
    ),
    (
        "top-lines-engine-2",
        toml(
            rule(body='region = "top_non_empty_lines(1)"\ncontains = ["x"]'),
            header='id = "t"\nmin_engine_version = 2\n',
        ),
        "rule r uses top_non_empty_lines but min_engine_version is below 3",
    ),
    (
        "depth-9",
        toml(rule(body=nested_all(9))),
        "rule r has invalid matcher gates: all gate exceeds max gate depth 8",
    ),
    (
        "not-depth-9",
        toml(rule(body=nested_not(9))),
        "rule r has invalid matcher gates: not gate exceeds max gate depth 8",
    ),
    (
        "513-gates",
        toml(rule(body="any = [" + ", ".join(['{ contains = ["x"] }'] * 512) + "]")),
        "rule r has invalid matcher gates: manifest exceeds max gate count 512",
    ),
    (
        "33-matchers",
        toml(rule(body=f"contains = [{matchers(33)}]")),
        "rule r has invalid matcher gates: rule has 33 direct matchers, max is 32",
    ),
    (
        "33-mixed-matchers",
        toml(
            rule(
                body=f"contains = [{matchers(11)}]\nregex = [{matchers(11)}]\n"
                f"line_regex = [{matchers(11)}]"
            )
        ),
        "rule has 33 direct matchers, max is 32",
    ),
    (
        "33-matchers-in-gate",
        toml(rule(body=f'contains = ["x"]\nany = [{{ contains = [{matchers(33)}] }}]')),
        "any gate has 33 direct matchers, max is 32",
    ),
    (
        "1025-matchers",
        toml(*(rule(f"r{k}", f"contains = [{matchers(32)}]") for k in range(32)), rule("last")),
        "rule last has invalid matcher gates: manifest exceeds max matcher count 1024",
    ),
    (
        "513-chars",
        toml(rule(body='contains = ["' + "é" * 513 + '"]')),
        "rule r has invalid matcher gates: rule matcher exceeds max length 512",
    ),
    (
        "513-char-line-regex",
        toml(rule(body="line_regex = ['" + "a" * 513 + "']")),
        "rule matcher exceeds max length 512",
    ),
    (
        "only-not",
        toml(rule(body='not = [{ contains = ["x"] }]')),
        "rule r has invalid matcher gates: rule must contain a positive matcher",
    ),
    ("no-matchers", toml(rule(body='state = "idle"')), "rule must contain a positive matcher"),
    (
        "empty-not-gate",
        toml(rule(body='contains = ["x"]\nnot = [{}]')),
        "rule r has invalid matcher gates: rule contains an empty not gate",
    ),
    (
        "empty-nested-not",
        toml(rule(body='contains = ["x"]\nnot = [{ not = [{}] }]')),
        "not gate must contain a matcher",
    ),
    (
        "any-child-only-not",
        toml(rule(body='any = [{ not = [{ contains = ["x"] }] }]')),
        "any gate must contain a positive matcher",
    ),
    (
        "all-child-empty",
        toml(rule(body='contains = ["x"]\nall = [{}]')),
        "all gate must contain a positive matcher",
    ),
    (
        "not-all-child-only-not",
        toml(rule(body='contains = ["x"]\nnot = [{ all = [{ not = [{ contains = ["y"] }] }] }]')),
        "not all gate must contain a positive matcher",
    ),
    (
        "bad-regex",
        toml(rule(body="regex = ['(?=x)']")),
        'rule r has invalid matcher gates: rule contains invalid regex pattern "(?=x)"',
    ),
    (
        "bad-line-regex-in-not",
        toml(rule(body="contains = [\"x\"]\nnot = [{ line_regex = ['a{,2}'] }]")),
        'not gate contains invalid line_regex pattern "a{,2}"',
    ),
]


@pytest.mark.parametrize(("text", "message"), [i[1:] for i in INVALID], ids=[i[0] for i in INVALID])
def test_invalid_past_the_bound(text: str, message: str) -> None:
    with pytest.raises(ManifestError) as err:
        parse_manifest(text)
    assert message in str(err.value)
    assert not isinstance(err.value, ManifestCompileError)
    assert "\n" not in str(err.value)


def test_first_failing_rule_wins_in_file_order() -> None:
    text = toml(rule("a", 'region = "nope"\ncontains = ["x"]'), rule(" "))
    with pytest.raises(ManifestError, match="rule a uses invalid region: nope"):
        parse_manifest(text)


def test_unsupported_regex_is_a_compile_error() -> None:
    with pytest.raises(ManifestCompileError) as err:
        parse_manifest(toml(rule("u", "regex = ['(?-u)a+']")))
    assert str(err.value).startswith("rule u could not be compiled:")


def test_validation_errors_outrank_unsupported_regex() -> None:
    """The original validates every rule before compiling any: a later validation error wins."""
    text = toml(rule("u", "regex = ['[a&&b]']"), rule("v", 'region = "bogus"\ncontains = ["x"]'))
    with pytest.raises(ManifestError) as err:
        parse_manifest(text)
    assert not isinstance(err.value, ManifestCompileError)
    assert "rule v uses invalid region: bogus" in str(err.value)


def test_compile_budget_is_manifest_wide() -> None:
    body = "regex = [" + ", ".join([f"'a{{{9000 + k}}}'" for k in range(30)]) + "]"
    with pytest.raises(ManifestCompileError, match="size limit"):
        parse_manifest(toml(rule(body=body)))


def test_duplicate_patterns_compile_once_and_still_match() -> None:
    manifest = parse_manifest(
        toml(rule("a", "regex = ['x+']"), rule("b", "regex = ['x+']\nline_regex = ['x+']"))
    )
    evaluation = evaluate(manifest, DetectionInput("xx\n"))
    assert [r.matched for r in evaluation.rule_results] == [True, True]
