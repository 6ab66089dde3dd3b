"""Property tests: every valid snapshot survives encode/decode, and no input crashes decode."""

from __future__ import annotations

import contextlib

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.persist.errors import SnapshotFormatError, SnapshotVersionError
from herdr.persist.snapshot import (
    PaneSnapshot,
    SessionSnapshot,
    TabSnapshot,
    WorkspaceSnapshot,
    decode,
    encode,
    to_json,
)
from herdr.runtime import ids
from herdr.runtime.agent_state import AgentSession, SessionRef
from herdr.runtime.layout import Leaf, Node, Split

# Characters that stress JSON escaping (quotes, backslash, controls, NUL, non-BMP,
# U+2028); a small alphabet keeps generation fast. Lone surrogates are replaced on
# encode and tested apart.
CHARS = 'aZ09 /._-"\\\n\t\x00\x7fé中🙂\u2028'
text = st.text(CHARS, max_size=8)
nonempty = st.text(CHARS, min_size=1, max_size=8)
ratios = st.floats(min_value=0.01, max_value=0.99, allow_nan=False)


@st.composite
def trees(draw: st.DrawFn, keys: list[int]) -> Node[int]:
    """A random split tree over exactly `keys` (each once), built by splitting leaves."""
    root: Node[int] = Leaf(keys[0])
    for key in keys[1:]:
        leaves = _leaves(root)
        target = draw(st.sampled_from(leaves))
        split = Split(
            draw(st.sampled_from(["right", "down"])),
            draw(ratios),
            *((Leaf(target), Leaf(key)) if draw(st.booleans()) else (Leaf(key), Leaf(target))),
        )
        root = _replace(root, target, split)
    return root


def _leaves(node: Node[int]) -> list[int]:
    if isinstance(node, Leaf):
        return [node.key]
    return _leaves(node.first) + _leaves(node.second)


def _replace(node: Node[int], key: int, new: Node[int]) -> Node[int]:
    if isinstance(node, Leaf):
        return new if node.key == key else node
    return Split(
        node.direction, node.ratio, _replace(node.first, key, new), _replace(node.second, key, new)
    )


sessions_refs = st.builds(
    AgentSession,
    nonempty,
    nonempty,
    st.builds(SessionRef, st.sampled_from(["id", "path"]), text),
)
panes = st.builds(
    PaneSnapshot,
    cwd=nonempty,
    label=st.none() | text,
    agent_name=st.none() | text,
    managed_agent_kind=st.none() | text,
    agent_session=st.none() | sessions_refs,
    launch_argv=st.none() | st.lists(text, max_size=4).map(tuple),
)


@st.composite
def tabs(draw: st.DrawFn, keys: list[int]) -> TabSnapshot:
    return TabSnapshot(
        layout=draw(trees(keys)),
        panes={k: draw(panes) for k in keys},
        custom_name=draw(st.none() | text),
        zoomed=draw(st.booleans()),
        focused=draw(st.none() | st.sampled_from(keys)),
        root_pane=draw(st.none() | st.sampled_from(keys)),
    )


@st.composite
def workspaces(draw: st.DrawFn, number: int, keys: list[int]) -> WorkspaceSnapshot:
    sizes: list[int] = []
    remaining = len(keys)
    while remaining:
        size = draw(st.integers(1, remaining))
        sizes.append(size)
        remaining -= size
    groups, start = [], 0
    for size in sizes:
        groups.append(keys[start : start + size])
        start += size
    pane_numbers = draw(
        st.lists(st.integers(1, 40_000), min_size=len(keys), max_size=len(keys), unique=True)
    )
    tab_numbers = draw(
        st.lists(st.integers(1, 5000), min_size=len(groups), max_size=len(groups), unique=True)
    )
    return WorkspaceSnapshot(
        id=ids.workspace_id(number),
        identity_cwd=draw(nonempty),
        tabs=tuple([draw(tabs(group)) for group in groups]),
        public_pane_numbers=dict(zip(keys, pane_numbers, strict=True)),
        public_tab_numbers=tuple(tab_numbers),
        next_public_pane_number=max(pane_numbers) + draw(st.integers(1, 3)),
        next_public_tab_number=max(tab_numbers) + draw(st.integers(1, 3)),
        custom_name=draw(st.none() | text),
        active_tab=draw(st.integers(0, len(groups) - 1)),
    )


@st.composite
def snapshots(draw: st.DrawFn) -> SessionSnapshot:
    count = draw(st.integers(0, 3))
    numbers = draw(st.lists(st.integers(1, 3000), min_size=count, max_size=count, unique=True))
    sizes = [draw(st.integers(1, 5)) for _ in numbers]
    all_keys = draw(
        st.lists(st.integers(0, 10**9), min_size=sum(sizes), max_size=sum(sizes), unique=True)
    )
    result, start = [], 0
    for number, size in zip(numbers, sizes, strict=True):
        result.append(draw(workspaces(number, all_keys[start : start + size])))
        start += size
    top = max(numbers, default=0)
    return SessionSnapshot(
        workspaces=tuple(result),
        active=draw(st.none() | st.integers(0, count - 1)) if count else None,
        selected=draw(st.integers(0, max(1, count) - 1)),
        next_workspace_number=draw(st.none() | st.integers(top + 1, top + 50)),
    )


@settings(max_examples=60, deadline=None)
@given(snapshots())
def test_encode_decode_round_trip(snap: SessionSnapshot) -> None:
    assert decode(encode(snap)) == snap


@settings(max_examples=15, deadline=None)
@given(snapshots())
def test_encoding_is_deterministic(snap: SessionSnapshot) -> None:
    assert encode(snap) == encode(decode(encode(snap)))


# JSON values of any shape, to check that decode fails only with our two errors.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=50, deadline=None)
@given(snapshots(), st.data())
def test_any_single_corruption_fails_cleanly(snap: SessionSnapshot, data: st.DataObject) -> None:
    """Replace one value anywhere in a valid document: decode returns a snapshot or
    raises a snapshot error, never anything else (KeyError, TypeError, RecursionError)."""
    doc = to_json(snap)
    slots = list(_slots(doc))
    holder, key = data.draw(st.sampled_from(slots))
    holder[key] = data.draw(json_values)  # type: ignore[index]
    with contextlib.suppress(SnapshotFormatError, SnapshotVersionError):
        decode(orjson.dumps(doc))


def _slots(value: object) -> list[tuple[object, object]]:
    out: list[tuple[object, object]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out.append((value, k))
            out.extend(_slots(v))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.append((value, i))
            out.extend(_slots(v))
    return out
