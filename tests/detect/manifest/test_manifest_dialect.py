"""Rust regex syntax → ``regex`` module translation (detection-spec §5, python-stack §5)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.detect.manifest import DetectionInput, Manifest, evaluate, parse_manifest
from herdr.detect.manifest.dialect import (
    MAX_PATTERN_SIZE,
    RegexSyntaxError,
    RegexUnsupportedError,
    compile_rust_regex,
    translate,
    translate_pattern,
)
from herdr.detect.manifest.regions import rust_lines

TRANSLATIONS = [
    ("braced-hex-bmp-class", r"^[\x{2800}-\x{28FF}] ", r"\A[\U00002800-\U000028FF] "),
    ("braced-hex-astral", r"\x{1F600}", r"\U0001F600"),
    ("braced-u", r"^⚠[\u{fe0e}\u{fe0f}]?(?:\s|$)", r"\A⚠[\U0000FE0E\U0000FE0F]?(?:\s|\Z)"),
    ("braced-capital-u", r"\U{41}", r"\U00000041"),
    ("fixed-width-hex", r"\x41\u0042\U00000043", r"\U00000041\U00000042\U00000043"),
    ("even-backslashes-stay-literal", r"\\x{41}", r"\\x{41}"),
    ("odd-backslashes-rewrite", r"\\\x{41}", r"\\\U00000041"),
    ("dollar-without-m", r"^4;1;-1$", r"\A4;1;\-1\Z"),
    ("dollar-with-m", r"(?m)^\s*❯\s*$", r"(?m-is:^\s*❯\s*$)"),
    ("scoped-m-then-plain", r"(?m:a$)b$", r"(?m-is:a$)b\Z"),
    ("negated-m", r"(?m)a(?-m)$", r"(?m-is:a(?-ims:\Z))"),
    ("z-escape", r"a\z", r"a\Z"),
    ("A-escape", r"\Aa", r"\Aa"),
    ("named-group", r"(?<n>x)", r"(?:x)"),
    ("python-named-group", r"(?P<n>x)", r"(?:x)"),
    ("stacked-star-plus", r"a*+", r"(?:a*)+"),
    ("stacked-counted", r"(ab){2}{2}", r"(?:(?:ab){2}){2}"),
    ("lazy-is-not-stacked", r"a*?b", r"a*?b"),
    ("lazy-then-stacked", r"a+?*", r"(?:a+?)*"),
    ("posix-alpha-ascii-only", r"[[:alpha:]]", r"[\U00000041-\U0000005A\U00000061-\U0000007A]"),
    ("posix-negated", r"[[:^digit:]]", r"[\U00000000-\U0000002F\U0000003A-\U0010FFFF]"),
    ("word-start-end", r"\<x\>", r"\mx\M"),
    ("special-word-boundary", r"\b{start}x\b{end}", r"\mx\M"),
    ("flags-persist-across-alternation", r"a(?i)b|c", r"a(?i-ms:b)|(?i-ms:c)"),
    ("verbose-whitespace-stripped", "(?x) a b # comment\n c", r"(?-ims:abc)"),
    ("leading-bracket-and-pipe-in-class", r"[]a|]", r"[\]a\|]"),
    ("property-verbatim", r"\p{Braille}\pL\P{Greek}", r"\p{Braille}\pL\P{Greek}"),
    ("crlf-flag-dropped", r"(?R)a", r"(?-ims:a)"),
    ("unicode-flag-dropped", r"(?u)a", r"(?-ims:a)"),
]


@pytest.mark.parametrize(
    ("pattern", "expected"), [t[1:] for t in TRANSLATIONS], ids=[t[0] for t in TRANSLATIONS]
)
def test_translation(pattern: str, expected: str) -> None:
    assert translate(pattern) == expected


SEMANTICS = [
    ("dollar-is-end-of-text", r"a$", "a\n", False),
    ("dollar-m-is-end-of-line", r"(?m)a$", "a\nb", True),
    ("z-is-end-of-text", r"a\z", "a\n", False),
    ("braille-property", r"\p{Braille}", "⠁", True),
    ("braille-property-miss", r"\p{Braille}", "a", False),
    ("alphabetic-property", r"^\s*[⠁-⣿]\s+\p{Alphabetic}", " ⠋ Éditing", True),
    ("posix-alpha-is-ascii", r"[[:alpha:]]", "é", False),
    ("posix-alpha-ascii-letter", r"[[:alpha:]]", "e", True),
    ("posix-negated-non-ascii", r"[[:^alpha:]]", "é", True),
    ("astral-escape", r"\x{1F600}", "😀", True),
    ("bmp-range-escape", r"[\x{2800}-\x{28FF}]", "⠋", True),
    ("even-backslash-literal", r"\\x{2}", "\\xx", True),
    ("even-backslash-not-A", r"\\x{41}", "A", False),
    ("stacked-not-possessive", r"a*+a", "aaa", True),
    ("stacked-counted-exact", r"x{2}{3}", "xxxxx", False),
    ("stacked-counted-hit", r"x{2}{3}", "xxxxxx", True),
    ("no-full-case-folding", r"(?i)ß", "SS", False),
    ("simple-case-folding", r"(?i)straße", "STRAẞE", True),
    ("s-excludes-info-separator", r"\s", "\x1c", False),
    ("s-includes-nbsp", r"\s", "\xa0", True),
    ("w-includes-connector", r"^\w$", "\u203f", True),
    ("flag-persists-after-pipe", r"a(?i)b|c", "C", True),
    ("flag-scoped-to-rest", r"a(?i)b", "Ab", False),
    ("scoped-flag-group", r"(?i:a)b", "AB", False),
    ("word-boundary-start", r"\<foo\>", "a foo b", True),
    ("word-boundary-inside", r"\<foo\>", "afoo", False),
    ("verbose-mode", "(?x) a b # c", "ab", True),
    ("verbose-mode-space-ignored", "(?x) a b", "a b", False),
    ("verbose-class-space-ignored", "(?x)^[a b]$", " ", False),
    ("dot-excludes-newline", r"a.b", "a\nb", False),
    ("dot-all", r"(?s)a.b", "a\nb", True),
    ("leading-bracket-literal", r"[]]", "]", True),
    ("pipe-in-class-literal", r"^[|]$", "|", True),
    ("escaped-punctuation", r"\/\@\#", "/@#", True),
    ("unicode-digit", r"^\d$", "٣", True),
    ("unanchored", r"b", "abc", True),
]


@pytest.mark.parametrize(
    ("pattern", "text", "expected"), [s[1:] for s in SEMANTICS], ids=[s[0] for s in SEMANTICS]
)
def test_semantics(pattern: str, text: str, expected: bool) -> None:
    assert (compile_rust_regex(pattern).search(text) is not None) is expected


REJECTED = [
    ("lookahead", r"(?=a)"),
    ("negative-lookahead", r"(?!a)"),
    ("lookbehind", r"(?<=a)b"),
    ("negative-lookbehind", r"(?<!a)b"),
    ("backreference", r"(a)\1"),
    ("atomic-group", r"(?>a)"),
    ("quote", r"\Qa\E"),
    ("escape-e", r"\e"),
    ("control-escape", r"\cA"),
    ("h-escape", r"\h"),
    ("keep-out", r"a\Kb"),
    ("python-end-anchor", r"a\Z"),
    ("python-G", r"\G"),
    ("named-char", r"\N{DIGIT ONE}"),
    ("missing-minimum", r"a{,3}"),
    ("unclosed-counted", r"a{2"),
    ("bare-brace", r"a{"),
    ("nothing-to-repeat", r"*a"),
    ("nothing-to-repeat-counted", r"{2}"),
    ("repeat-after-flags", r"(?i)*"),
    ("min-greater-than-max", r"a{3,2}"),
    ("comment-group", r"(?#c)"),
    ("python-backref-group", r"(?P<n>a)(?P=n)"),
    ("duplicate-name", r"(?<n>a)(?<n>b)"),
    ("bad-group-name", r"(?<1n>a)"),
    ("empty-flags", r"(?)"),
    ("dangling-negation", r"(?i-)"),
    ("repeated-negation", r"(?-i-m)"),
    ("duplicate-flag", r"(?ii)"),
    ("unknown-flag", r"(?y)"),
    ("python-version-flag", r"(?V1)"),
    ("unclosed-group", r"(a"),
    ("unopened-group", r"a)"),
    ("unclosed-class", r"[a"),
    ("surrogate-escape", r"\x{D800}"),
    ("beyond-unicode", r"\x{110000}"),
    ("empty-hex", r"\x{}"),
    ("short-hex", r"\x4"),
    ("non-ascii-escape", r"\ü"),
    ("trailing-backslash", "a\\"),
    ("assertion-in-class", r"[\b]"),
    ("unknown-property", r"\p{NoSuchProperty}"),
    ("bad-posix-name", r"[[:alhpa:]]"),
    ("unknown-special-boundary", r"\b{middle}"),
    ("python-fuzzy", r"(?:ab){e<=1}"),
]


@pytest.mark.parametrize("pattern", [r[1] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_rejected_like_rust(pattern: str) -> None:
    with pytest.raises(RegexSyntaxError):
        compile_rust_regex(pattern)


UNSUPPORTED = [
    ("ascii-mode", r"(?-u)\w"),
    ("nested-class", r"[a[b]]"),
    ("class-intersection", r"[a-c&&b]"),
    ("class-difference", r"[a-c--b]"),
    ("class-symmetric-difference", r"[a-c~~b]"),
    ("half-boundary", r"\b{start-half}x"),
]


@pytest.mark.parametrize("pattern", [u[1] for u in UNSUPPORTED], ids=[u[0] for u in UNSUPPORTED])
def test_valid_rust_but_unsupported(pattern: str) -> None:
    with pytest.raises(RegexUnsupportedError):
        compile_rust_regex(pattern)


def test_size_limit_stops_exponential_compile() -> None:
    """``regex`` never finishes compiling this; Rust rejects it as too big."""
    with pytest.raises(RegexSyntaxError, match="size limit"):
        compile_rust_regex(r"(?:a{65535}){65535}")
    assert translate_pattern(r"a{100}").size <= MAX_PATTERN_SIZE


def test_newline_lead_only_when_meaning_is_kept() -> None:
    assert translate_pattern(r"(?m)^a", newline_lead=True).newline_lead
    assert not translate_pattern(r"^a", newline_lead=True).newline_lead  # \A is already fast
    assert not translate_pattern(r"(?m)^a|b", newline_lead=True).newline_lead
    assert not translate_pattern(r"(?m)^a(?-m:^)", newline_lead=True).newline_lead
    assert translate_pattern(r"^a|b", line_mode=True, newline_lead=True).newline_lead


# -- relaxed line filtering and the newline-lead rewrite agree with the plain meaning --

PROBE_PATTERNS = [
    r"^a",
    r"a$",
    r"^$",
    r"^\s*$",
    r"\Aa",
    r"a\z",
    r"^\s*[❯>]\s*$",
    r"(?m)^b",
    r"(?m)^\s*a\s*$",
    r"\ba\b",
    r"\Bb",
    r"\<ab\>",
    r"[^a]b",
    r"a\s+b",
    r"a\W+b",
    r"\D\D",
    r"(?s)a.b",
    r"a.b",
    r"^a|b$",
    r"(?:^| )a(?: |$)",
    r"(?i)^A\s",
    r"a\nb",
    r"\p{Cc}",
    r"^(a|b){2,}$",
    r"x*",
    r"^",
    r"$",
    r"ab+c",
    r"a\.b?c",
    r"(?i)AB",
    r"^ba(?:a|b)*c$",
    r"x\x{41}b",
]
TEXT = st.lists(
    st.sampled_from(["a", "b", "c", "A", "x", " ", "\t", "\n", "\n", "\r", "❯", ">", "."])
)


def _one_rule(kind: str, pattern: str) -> Manifest:
    assert "'" not in pattern and "\n" not in pattern  # fits a TOML literal string
    return parse_manifest(f"id = 't'\n[[rules]]\nid = 'r'\n{kind} = ['{pattern}']\n")


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PROBE_PATTERNS), TEXT.map("".join))
def test_line_regex_matches_some_line(pattern: str, text: str) -> None:
    manifest = _one_rule("line_regex", pattern)
    exact = compile_rust_regex(pattern)
    oracle = any(exact.search(line) is not None for line in rust_lines(text))
    assert evaluate(manifest, DetectionInput(text)).rule_results[0].matched is oracle


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PROBE_PATTERNS), TEXT.map("".join))
def test_regex_matches_anywhere(pattern: str, text: str) -> None:
    manifest = _one_rule("regex", pattern)
    oracle = compile_rust_regex(pattern).search(text) is not None
    assert evaluate(manifest, DetectionInput(text)).rule_results[0].matched is oracle


REQUIRED = [
    ("plain-literal", r"^\s*[⏸⏵].*esc to interrupt(?:\s|·|$)", ("esc to interrupt",)),
    ("escapes-are-literals", r"x\.y\x{41}", ("x.yA",)),
    ("repeated-char-dropped", r"ab+c", ("a", "c")),
    ("optional-char-dropped", r"abc?d", ("ab", "d")),
    ("stacked-quantifier", r"ab+*c", ("a", "c")),
    ("case-insensitive-skipped", r"(?i)esc to close\s*$", ()),
    ("flag-switch", r"(?i)ab(?-i)cd", ("cd",)),
    ("groups-are-opaque", r"MCP(?:[ \t]+|\n)tasks?", ("task", "MCP")),
    ("top-level-alternation", r"abc|def", ()),
    ("nested-alternation-ok", r"abc(?:d|e)fg", ("abc", "fg")),
]


@pytest.mark.parametrize(
    ("pattern", "required"), [r[1:] for r in REQUIRED], ids=[r[0] for r in REQUIRED]
)
def test_required_literals(pattern: str, required: tuple[str, ...]) -> None:
    assert translate_pattern(pattern).required == required
    assert translate_pattern(pattern, line_mode=True, newline_lead=True).required == required


UNTIMED = [
    ("anchored-class", r"^[\x{2800}-\x{28FF}] ", True),
    ("alternatives", r"(?:^| )[⠋⠙](?: |$)", True),
    ("one-star", r"^\s*❯", True),
    ("bounded-group", r"^( [\x{2800}-\x{28FF}]){1,2} ", True),
    ("nested-plus", r"(x+x+)+y", False),
    ("repeated-alternation", r"(a|aa)+$", False),
    ("stacked", r"a*+", False),
    ("huge-bounded-choices", r"(?:a?){60}", False),
]


@pytest.mark.parametrize(
    ("pattern", "untimed"), [u[1:] for u in UNTIMED], ids=[u[0] for u in UNTIMED]
)
def test_only_provably_cheap_searches_skip_the_timeout(pattern: str, untimed: bool) -> None:
    assert (translate_pattern(pattern).untimed_max_len > 0) is untimed


def test_short_text_with_exponential_pattern_is_still_timed() -> None:
    manifest = _one_rule("regex", r"(a|aa)+$")
    evaluation = evaluate(manifest, DetectionInput("a" * 40 + "!"))
    assert not evaluation.rule_results[0].matched


@pytest.mark.parametrize("pattern", [r"(?U)a+", r"(?U:a+)b", r"(?iU)A+"])
def test_swap_greed_flag_is_dropped(pattern: str) -> None:
    """detection-spec §5.3 rule 5: ``U`` changes which match, never whether one exists."""
    assert compile_rust_regex(pattern).search("xaab") is not None
