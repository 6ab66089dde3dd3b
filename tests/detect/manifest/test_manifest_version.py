"""Dotted manifest versions (detection-spec §7.4) and the engine version (§4.5)."""

from __future__ import annotations

import pytest

from herdr.detect.manifest import ENGINE_VERSION, ManifestError, parse_version


def test_engine_version() -> None:
    assert ENGINE_VERSION == 3


ORDER = [
    ("trailing-zero-equal", "1.2", "1.2.0", 0),
    ("leading-zeros-irrelevant", "2026.06.10.1", "2026.6.10.1", 0),
    ("longer-is-greater", "1.2.1", "1.2", 1),
    ("numeric-not-lexical", "2026.6.10.1", "2026.6.9.9", 1),
    ("older", "2026.07.16.1", "2026.07.16.2", -1),
    ("zero-equals-zeros", "0", "0.0.0", 0),
    ("u64-max", "18446744073709551615", "18446744073709551614", 1),
]


@pytest.mark.parametrize(("a", "b", "cmp"), [o[1:] for o in ORDER], ids=[o[0] for o in ORDER])
def test_ordering(a: str, b: str, cmp: int) -> None:
    va, vb = parse_version(a), parse_version(b)
    assert ((va > vb) - (va < vb)) == cmp
    assert (va == vb) is (cmp == 0)
    if cmp == 0:
        assert hash(va) == hash(vb)


def test_display_is_trimmed_original() -> None:
    version = parse_version(" 2026.06.10.1\u3000")
    assert str(version) == "2026.06.10.1"
    assert version.text == "2026.06.10.1"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "2026.06.alpha",
        "2026..06",
        ".1",
        "1.",
        "1.-2",
        "+1",
        "1 .2",
        "٣",
        "18446744073709551616",
    ],
    ids=repr,
)
def test_invalid_versions(text: str) -> None:
    with pytest.raises(ManifestError) as err:
        parse_version(text)
    assert "invalid manifest version" in str(err.value)
