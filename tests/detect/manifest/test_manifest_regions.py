"""Region selectors against detection-spec §11.2 (vectors copied to data/region_vectors.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.detect.manifest import DetectionInput, evaluate, parse_manifest
from herdr.detect.manifest.gates import RegionText
from herdr.detect.manifest.regions import (
    ScreenView,
    is_horizontal_rule,
    parse_region,
    region_text,
    rust_lines,
    select_span,
)

DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "region_vectors.json").read_text(encoding="utf-8")
)
REGION_VECTORS: list[dict[str, str]] = DATA["regions"]
RULE_LINES: list[dict[str, Any]] = DATA["horizontal_rules"]
REGION_NAMES: list[dict[str, Any]] = DATA["region_names"]

ALL_SCREEN_REGIONS = [
    "whole_recent",
    "bottom_lines(0)",
    "bottom_lines(2)",
    "bottom_non_empty_lines(1)",
    "bottom_non_empty_lines(3)",
    "top_non_empty_lines(1)",
    "top_non_empty_lines(2)",
    "after_last_prompt_marker",
    "before_current_prompt_marker",
    "whole_recent_without_current_prompt_marker",
    "current_prompt_block_marker",
    "after_current_prompt_block_marker",
    "prompt_box_body",
    "above_prompt_box",
    "last_non_empty_above_prompt_box",
    "after_last_horizontal_rule",
]


@pytest.mark.parametrize("vector", REGION_VECTORS, ids=[v["id"] for v in REGION_VECTORS])
def test_region_slicing_vector(vector: dict[str, str]) -> None:
    assert region_text(vector["region"], vector["screen"]) == vector["expected"]


@pytest.mark.parametrize("vector", REGION_VECTORS, ids=[v["id"] for v in REGION_VECTORS])
def test_engine_sees_the_same_region_text(vector: dict[str, str]) -> None:
    """The engine's span-based slicing (and its lower-case shortcut) agrees with the vectors."""
    manifest = parse_manifest(
        f'id = "t"\n[[rules]]\nid = "r"\nregion = "{vector["region"]}"\nregex = [\'(?s).*\']\n'
    )
    result = evaluate(manifest, DetectionInput(vector["screen"])).rule_results[0]
    assert result.region_text == vector["expected"]
    region = parse_region(vector["region"])
    assert region is not None
    view = ScreenView(vector["screen"])
    assert RegionText.from_selection(select_span(region, view), view).lower == (
        vector["expected"].lower()
    )


@pytest.mark.parametrize(
    "case", RULE_LINES, ids=[f"{c['line']!r}-{c['is_rule']}" for c in RULE_LINES]
)
def test_horizontal_rule_recognition(case: dict[str, Any]) -> None:
    assert is_horizontal_rule(case["line"]) is case["is_rule"]


@pytest.mark.parametrize("case", REGION_NAMES, ids=[repr(c["spec"]) for c in REGION_NAMES])
def test_region_name_validation(case: dict[str, Any]) -> None:
    assert (parse_region(case["spec"]) is not None) is case["valid"]


EXTRA_NAMES = [
    ("whole_recent", True),
    ("osc_progress", True),
    ("prompt_box_body", True),
    ("above_prompt_box", True),
    ("last_non_empty_above_prompt_box", True),
    ("after_last_horizontal_rule", True),
    ("before_current_prompt_marker", True),
    ("whole_recent_without_current_prompt_marker", True),
    ("current_prompt_block_marker", True),
    ("after_current_prompt_block_marker", True),
    ("after_last_prompt_marker", True),
    ("\u3000whole_recent\u2003", True),  # Unicode White_Space is trimmed
    ("whole_recent\x1c", False),  # …but U+001C is not (Python's str.strip would)
    ("bottom_non_empty_lines(0)", True),
    ("bottom_non_empty_lines(+0)", True),
    ("bottom_non_empty_lines(007)", True),
    ("bottom_lines(3", False),
    ("bottom_lines(3))", False),
    ("bottom_lines(+)", False),
    ("bottom_lines(++3)", False),
    ("bottom_lines(1_0)", False),
    ("bottom_lines(\u0663)", False),  # ARABIC-INDIC DIGIT THREE: not ASCII
    ("bottom_lines (3)", False),
    ("top_non_empty_lines(1)", True),
    ("top_non_empty_lines()", False),
    ("top_non_empty_lines(1 )", False),
    ("top_non_empty_lines(99999999999999999999999)", False),
    ("bogus", False),
    ("", False),
]


@pytest.mark.parametrize(("spec", "valid"), EXTRA_NAMES, ids=[repr(s) for s, _ in EXTRA_NAMES])
def test_region_name_edge_cases(spec: str, valid: bool) -> None:
    assert (parse_region(spec) is not None) is valid


LINES_CASES = [
    ("", []),
    ("a", ["a"]),
    ("a\n", ["a"]),
    ("a\n\n", ["a", ""]),
    ("\n", [""]),
    ("a\r\nb", ["a", "b"]),
    ("a\r\n", ["a"]),
    ("a\r", ["a\r"]),
    ("a\rb\n", ["a\rb"]),
    ("a\r\r\n", ["a\r"]),
]


@pytest.mark.parametrize(("text", "expected"), LINES_CASES, ids=[repr(t) for t, _ in LINES_CASES])
def test_rust_lines(text: str, expected: list[str]) -> None:
    assert rust_lines(text) == expected


CRLF_CASES = [
    ("last_non_empty_above_prompt_box", "x\r\n────\r\n❯ \r\n────\r\n", "x\r"),
    ("current_prompt_block_marker", "• a\r\n› \r\n", "• a"),
    ("after_last_horizontal_rule", "a\r\n────\r\nb\r\n", "\r\nb\r\n"),
]


@pytest.mark.parametrize(("spec", "screen", "expected"), CRLF_CASES, ids=[c[0] for c in CRLF_CASES])
def test_crlf_offsets_are_bug_compatible(spec: str, screen: str, expected: str) -> None:
    assert region_text(spec, screen) == expected


def test_osc_regions_come_from_the_osc_strings() -> None:
    assert region_text("osc_title", "screen", "title", "4;0;") == "title"
    assert region_text(" osc_progress ", "screen", "title", "4;0;") == "4;0;"


def test_unknown_region_yields_empty_text() -> None:
    assert region_text("bogus", "a\n") == ""


SCREEN_ALPHABET = st.sampled_from(
    [
        "a",
        "B",
        " ",
        "\t",
        "\n",
        "\n",
        "\r",
        "İ",
        "Σ",
        "ς",
        "ß",
        "─",
        "───",
        "› ",
        "›",
        "•",
        "■",
        "x",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(SCREEN_ALPHABET, max_size=40).map("".join))
def test_sliced_lower_case_equals_lowering_the_region(screen: str) -> None:
    """Regions take their lower case from the lower-cased screen; that must be exact
    (İ expands, final sigma depends on context, CRLF shifts offsets)."""
    view = ScreenView(screen)
    for spec in ALL_SCREEN_REGIONS:
        region = parse_region(spec)
        assert region is not None
        expected = region_text(spec, screen)
        text = RegionText.from_selection(select_span(region, view), view)
        assert text.text == expected, spec
        assert text.lower == expected.lower(), spec
