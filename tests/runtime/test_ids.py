"""Public id grammar (spec §1.2): bijective base-32 and canonical/legacy id forms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herdr.runtime import ids
from herdr.runtime.ids import PaneRef, TabRef, WorkspaceRef


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1, "1"),
        (9, "9"),
        (10, "A"),
        (17, "H"),  # no I
        (18, "J"),
        (20, "M"),  # no L
        (22, "P"),  # no O
        (27, "V"),  # no U
        (31, "Z"),
        (32, "0"),
        (33, "11"),
        (64, "10"),
        (65, "21"),
        (32 * 32 + 32, "00"),
        (32 * 32 + 33, "111"),
    ],
    ids=str,
)
def test_encode_decode_table(number: int, text: str) -> None:
    assert ids.encode_number(number) == text
    assert ids.decode_number(text) == number


@pytest.mark.parametrize("number", [0, -1, -33], ids=["zero", "minus-one", "minus-33"])
def test_encode_rejects_non_positive(number: int) -> None:
    with pytest.raises(ValueError):
        ids.encode_number(number)


@pytest.mark.parametrize(
    "text",
    ["", "I", "L", "O", "U", "a", "1a", " 1", "1 ", "-1", "+1", "١"],
    ids=["empty", "I", "L", "O", "U", "lower", "mixed", "lead-space", "trail-space", "minus",
         "plus", "arabic-digit"],
)  # fmt: skip
def test_decode_rejects_outside_alphabet(text: str) -> None:
    assert ids.decode_number(text) is None


@given(st.integers(min_value=1, max_value=10**12))
def test_encode_decode_round_trip(number: int) -> None:
    assert ids.decode_number(ids.encode_number(number)) == number


@given(st.text(alphabet=ids.ALPHABET, min_size=1, max_size=8))
def test_every_alphabet_string_is_canonical(text: str) -> None:
    """Bijective: no two spellings of one number, so string equality is id equality."""
    number = ids.decode_number(text)
    assert number is not None
    assert ids.encode_number(number) == text


@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6))
def test_encoding_is_order_preserving_by_length_then_text(a: int, b: int) -> None:
    ea, eb = ids.encode_number(a), ids.encode_number(b)
    rank = {ch: i for i, ch in enumerate(ids.ALPHABET)}
    key_a = (len(ea), [rank[c] for c in ea])
    key_b = (len(eb), [rank[c] for c in eb])
    assert (a < b) == (key_a < key_b)


@pytest.mark.parametrize(
    ("numbers", "canonical"),
    [
        ((1, 1, 1), ("w1", "w1:t1", "w1:p1")),
        ((10, 2, 3), ("wA", "wA:t2", "wA:p3")),
        ((32, 33, 64), ("w0", "w0:t11", "w0:p10")),
    ],
    ids=["first", "letters", "carry"],
)
def test_canonical_formatting_and_parsing(
    numbers: tuple[int, int, int], canonical: tuple[str, str, str]
) -> None:
    workspace, tab, pane = numbers
    ws_id, tab_id, pane_id = canonical
    assert ids.workspace_id(workspace) == ws_id
    assert ids.tab_id(ws_id, tab) == tab_id
    assert ids.pane_id(ws_id, pane) == pane_id
    assert ids.parse_workspace_id(ws_id) == workspace
    assert ids.parse_tab_id(tab_id) == (workspace, tab)
    assert ids.parse_pane_id(pane_id) == (workspace, pane)


@pytest.mark.parametrize(
    "text",
    ["", "w", "1", "w_1", "W1", "w1:", "w1:t", "w1:p", "w1:x1", "w1:tI", "wI:t1", "t1"],
    ids=repr,
)
def test_canonical_parsers_reject(text: str) -> None:
    assert ids.parse_workspace_id(text) is None
    assert ids.parse_tab_id(text) is None
    assert ids.parse_pane_id(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("w1", WorkspaceRef(number=1)),
        ("wA", WorkspaceRef(number=10)),
        ("2", WorkspaceRef(index=2)),
        ("w_2", WorkspaceRef(index=2)),
        ("w_10", WorkspaceRef(index=10)),
        ("0", None),
        ("w_0", None),
        ("w_", None),
        ("w_x", None),
        ("-1", None),
        ("wI", None),
        ("", None),
    ],
    ids=lambda v: repr(v) if isinstance(v, str) else "",
)
def test_parse_workspace_ref(text: str, expected: WorkspaceRef | None) -> None:
    assert ids.parse_workspace_ref(text) == expected


W1 = WorkspaceRef(number=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("w1:t1", TabRef(W1, number=1)),
        ("w1:tA", TabRef(W1, number=10)),
        ("w1:2", TabRef(W1, index=2)),
        ("2:3", TabRef(WorkspaceRef(index=2), index=3)),
        ("w_2:t1", TabRef(WorkspaceRef(index=2), number=1)),
        ("t_w1_2", TabRef(W1, index=2)),
        ("t_w_1_2", TabRef(WorkspaceRef(index=1), index=2)),
        ("t_3_1", TabRef(WorkspaceRef(index=3), index=1)),
        ("w1:0", None),
        ("w1:t", None),
        ("w1:tI", None),
        ("t_w1_", None),
        ("t_w1", None),
        ("w1", None),
        (":t1", None),
    ],
    ids=lambda v: repr(v) if isinstance(v, str) else "",
)
def test_parse_tab_ref(text: str, expected: TabRef | None) -> None:
    assert ids.parse_tab_ref(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("w1:p1", PaneRef(W1, number=1)),
        ("w1:p11", PaneRef(W1, number=33)),
        ("2:p1", PaneRef(WorkspaceRef(index=2), number=1)),
        ("w1-3", PaneRef(W1, number=3)),
        ("w1-33", PaneRef(W1, number=33)),  # legacy dash form is decimal
        ("w_1-2", PaneRef(WorkspaceRef(index=1), number=2)),
        ("p_w1_7", PaneRef(W1, raw=7)),
        ("p_w_2_7", PaneRef(WorkspaceRef(index=2), raw=7)),
        ("p_7", PaneRef(None, raw=7)),
        ("p_0", None),
        ("p_w1_x", None),
        ("p_", None),
        ("w1:p", None),
        ("w1:pI", None),
        ("w1-", None),
        ("w1-A", None),
        ("w1:t1", None),
        ("w1", None),
    ],
    ids=lambda v: repr(v) if isinstance(v, str) else "",
)
def test_parse_pane_ref(text: str, expected: PaneRef | None) -> None:
    assert ids.parse_pane_ref(text) == expected
