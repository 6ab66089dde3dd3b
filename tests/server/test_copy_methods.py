"""Copy mode over the socket on a real server and a real shell pane: ``pane.scroll``,
``pane.selection.read``, ``pane.copy_motion``, ``pane.copy_search``.

Known text is printed with ``printf``; rows are found through ``pane.read`` (its
``recent`` rows start at row 0 while the pane has fewer rows than asked for), so the
absolute rows the methods take are checked against an independent read. Every result
is validated against herdr's published protocol-22 schema.
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pytest

from herdr.api.limits import MAX_PATTERN_CHARS
from herdr_testing import ServerHandle, wait_until
from herdr_testing.held import HeldConnection
from herdr_testing.schema22 import assert_valid_response, assert_valid_result

ALL_ROWS = 10_000


def ok(server: ServerHandle, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "result" in reply, reply
    assert_valid_response(reply)
    result: dict[str, Any] = reply["result"]
    return result


def error(server: ServerHandle, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "error" in reply, reply
    assert_valid_response(reply)
    err: dict[str, Any] = reply["error"]
    return err


def new_pane(server: ServerHandle) -> str:
    created = ok(server, "workspace.create", {"cwd": str(server.root)})
    return str(created["root_pane"]["pane_id"])


def rows_of(server: ServerHandle, pane: str) -> list[str]:
    read = ok(server, "pane.read", {"pane_id": pane, "source": "recent", "lines": ALL_ROWS})
    text: str = read["read"]["text"]
    return text.removesuffix("\n").split("\n")


def revision(server: ServerHandle, pane: str) -> int:
    return int(ok(server, "pane.get", {"pane_id": pane})["pane"]["revision"])


def print_rows(server: ServerHandle, pane: str, script: str, last: str) -> list[str]:
    """Run ``script`` in the pane's shell and wait for a row equal to ``last``; then
    wait until the pane is quiet (the prompt drawn), so revisions stay put."""
    ok(server, "pane.send_text", {"pane_id": pane, "text": script + "\r"})
    wait_until(lambda: last in rows_of(server, pane), message=f"{last!r} printed")

    def settled() -> list[str] | None:
        before = revision(server, pane)
        rows = rows_of(server, pane)
        prompt = rows[-1].rstrip().endswith(("$", "#"))
        return rows if prompt and revision(server, pane) == before else None

    rows = wait_until(settled, message="the prompt after the output")
    assert rows is not None
    return rows


def point(row: int, col: int) -> dict[str, int]:
    return {"row": row, "col": col}


# --- pane.scroll ------------------------------------------------------------------------


def test_scroll_sets_the_viewport_clamps_and_publishes(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    print_rows(herdr_server, pane, "seq 1 300", "300")
    stream = HeldConnection(
        herdr_server.socket_path,
        "events.subscribe",
        {"subscriptions": [{"type": "pane.scroll_changed", "pane_id": pane}]},
        "sub",
        timeout=10,
    )
    try:
        started = stream.next()
        assert started is not None and started["result"]["type"] == "subscription_started"

        scrolled = ok(herdr_server, "pane.scroll", {"pane_id": pane, "offset_from_bottom": 7})
        assert scrolled["type"] == "pane_info"
        scroll = scrolled["pane"]["scroll"]
        assert scroll["offset_from_bottom"] == 7
        most = scroll["max_offset_from_bottom"]
        assert most > 7
        assert ok(herdr_server, "pane.get", {"pane_id": pane})["pane"]["scroll"] == scroll
        event = stream.next()
        assert event is not None
        assert event["event"] == "pane.scroll_changed"
        assert event["data"]["pane_id"] == pane
        assert event["data"]["scroll"] == scroll

        top = ok(herdr_server, "pane.scroll", {"pane_id": pane, "offset_from_bottom": 2**64 - 1})
        assert top["pane"]["scroll"]["offset_from_bottom"] == most  # clamped, not an error
        event = stream.next()
        assert event is not None and event["data"]["scroll"]["offset_from_bottom"] == most

        again = ok(herdr_server, "pane.scroll", {"pane_id": pane, "offset_from_bottom": most + 5})
        assert again["pane"]["scroll"]["offset_from_bottom"] == most  # no move: no event

        bottom = ok(herdr_server, "pane.scroll", {"pane_id": pane, "offset_from_bottom": 0})
        assert bottom["pane"]["scroll"]["offset_from_bottom"] == 0
        event = stream.next()
        assert event is not None and event["data"]["scroll"]["offset_from_bottom"] == 0
    finally:
        stream.close()


def attach_offsets(server: ServerHandle, pane: str, want: int) -> list[int]:
    """Attach as a TUI client and read ``rows`` messages for ``pane`` until one shows the
    viewport ``want`` rows up; the offsets seen on the way."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(server.socket_path))
    seen: list[int] = []
    try:
        attach = {"id": "a", "method": "client.attach", "params": {"cols": 100, "rows": 30}}
        sock.sendall(json.dumps(attach).encode() + b"\n")
        buf = b""
        while want not in seen:
            while b"\n" not in buf:
                chunk = sock.recv(65536)
                assert chunk, "attach stream ended"
                buf += chunk
            line, buf = buf.split(b"\n", 1)
            doc = json.loads(line)
            if doc.get("t") == "rows" and doc["pane_id"] == pane:
                seen.append(doc["offset"])
                if len(seen) == 1:
                    ok(server, "pane.scroll", {"pane_id": pane, "offset_from_bottom": want})
    finally:
        sock.close()
    return seen


def test_an_attached_client_sees_the_scrolled_viewport(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    print_rows(herdr_server, pane, "seq 1 300", "300")
    assert attach_offsets(herdr_server, pane, 40)[-1] == 40


def test_scroll_keeps_reads_and_pins_the_view(herdr_server: ServerHandle) -> None:
    """Reads (and detection) never scroll; output while scrolled keeps the view on its
    rows, so the offset grows instead of the text moving under the reader."""
    pane = new_pane(herdr_server)
    rows = print_rows(herdr_server, pane, "seq 1 300", "300")
    ok(herdr_server, "pane.scroll", {"pane_id": pane, "offset_from_bottom": 100})
    assert rows_of(herdr_server, pane) == rows
    print_rows(herdr_server, pane, "echo back", "back")
    info = ok(herdr_server, "pane.get", {"pane_id": pane})["pane"]
    assert info["scroll"]["offset_from_bottom"] > 100


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("pane.scroll", {"offset_from_bottom": 1}),
        ("pane.selection.read", {"anchor": point(0, 0), "cursor": point(0, 1)}),
        ("pane.copy_motion", {"cursor": point(0, 0), "motion": "line_end"}),
        (
            "pane.copy_search",
            {"query": "x", "direction": "forward", "cursor": point(0, 0), "content_revision": 0},
        ),
    ],
    ids=["scroll", "selection", "motion", "search"],
)
def test_unknown_pane_is_pane_not_found(
    shared_server: ServerHandle, method: str, params: dict[str, Any]
) -> None:
    assert error(shared_server, method, {"pane_id": "w999:p9", **params})["code"] == (
        "pane_not_found"
    )


# --- pane.selection.read ----------------------------------------------------------------

# The fourth row is "國面 ok,go": two wide glyphs (cols 0-1, 2-3)
SCRIPT = r"printf 'foo.bar  baz_1\n  (x) y\n\n\345\234\213\351\235\242 ok,go\nEND-MARK\n'"


def printed(server: ServerHandle) -> tuple[str, int, list[str]]:
    """A pane with SCRIPT's rows on it: (pane id, absolute row of "foo.bar", rows)."""
    pane = new_pane(server)
    rows = print_rows(server, pane, SCRIPT, "END-MARK")
    first = rows.index("foo.bar  baz_1")
    assert rows[first + 3] == "國面 ok,go"
    return pane, first, rows


@pytest.fixture(scope="module")
def text_pane(shared_server: ServerHandle) -> tuple[str, int]:
    pane, first, _ = printed(shared_server)
    return pane, first


SELECTIONS = [
    # (anchor, cursor, text): rows relative to "foo.bar"
    ((0, 0), (0, 2), "foo"),
    ((0, 4), (0, 0), "foo.b"),  # cursor before anchor: reading order
    ((0, 4), (1, 3), "bar  baz_1\n  (x"),  # trailing blanks of a line trimmed
    ((1, 6), (3, 1), "y\n\n國"),  # through a blank row; col 1 is 國's right half
    ((3, 2), (3, 200), "面 ok,go"),  # a column past the width means the row's end
]


@pytest.mark.parametrize(
    ("anchor", "cursor", "text"), SELECTIONS, ids=["word", "reversed", "lines", "wide", "to-end"]
)
def test_selection_read(
    shared_server: ServerHandle,
    text_pane: tuple[str, int],
    anchor: tuple[int, int],
    cursor: tuple[int, int],
    text: str,
) -> None:
    pane, first = text_pane
    result = ok(
        shared_server,
        "pane.selection.read",
        {
            "pane_id": pane,
            "anchor": point(first + anchor[0], anchor[1]),
            "cursor": point(first + cursor[0], cursor[1]),
        },
    )
    assert_valid_result(result)
    assert result == {"type": "pane_selection", "pane_id": pane, "text": text}


def test_selection_joins_soft_wrapped_rows(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    long = "".join(f"w{i:03d}" for i in range(100))  # 400 columns: wraps on any pane
    rows = print_rows(herdr_server, pane, f"printf '{long}\\nafter\\n'", "after")
    start = next(i for i, row in enumerate(rows) if row.startswith("w000"))
    end = rows.index("after") - 1
    assert end > start  # it did wrap
    result = ok(
        herdr_server,
        "pane.selection.read",
        {"pane_id": pane, "anchor": point(start, 0), "cursor": point(end, 500)},
    )
    assert result["text"] == long


def test_selection_checks_the_content_revision(herdr_server: ServerHandle) -> None:
    pane, first, _ = printed(herdr_server)
    params = {"pane_id": pane, "anchor": point(first, 0), "cursor": point(first, 2)}
    now = revision(herdr_server, pane)
    assert (
        ok(herdr_server, "pane.selection.read", {**params, "content_revision": now})["text"]
        == "foo"
    )
    err = error(herdr_server, "pane.selection.read", {**params, "content_revision": now - 1})
    assert err["code"] == "stale_content"
    assert revision(herdr_server, pane) == now  # a refused read changes nothing


@pytest.mark.parametrize(
    "method", ["pane.selection.read", "pane.copy_motion"], ids=["selection", "motion"]
)
def test_a_row_past_the_pane_is_invalid_params(
    shared_server: ServerHandle, text_pane: tuple[str, int], method: str
) -> None:
    pane, _ = text_pane
    far = point(4_000_000, 0)
    params: dict[str, Any] = (
        {"anchor": point(0, 0), "cursor": far}
        if method == "pane.selection.read"
        else {"cursor": far, "motion": "next_word_start"}
    )
    err = error(shared_server, method, {"pane_id": pane, **params})
    assert err["code"] == "invalid_params"
    assert "row 4000000" in err["message"]
    assert ok(shared_server, "ping", {})["type"] == "pong"


# --- pane.copy_motion -------------------------------------------------------------------

MOTIONS = [
    # (motion, from, to): rows relative to "foo.bar"; rows 0-3 as SCRIPT prints them
    ("line_end", (0, 0), (0, 13)),
    ("line_end", (3, 0), (3, 9)),
    ("line_end", (2, 5), (2, 0)),  # blank row
    ("first_non_blank", (1, 6), (1, 2)),
    ("first_non_blank", (3, 7), (3, 0)),
    ("next_word_start", (0, 0), (0, 3)),
    ("next_word_start", (0, 4), (0, 9)),
    ("next_word_start", (0, 9), (1, 2)),  # across the line end
    ("next_word_start", (1, 6), (3, 0)),  # across the blank row
    ("next_word_start", (3, 1), (3, 5)),  # from 國's right half
    ("previous_word_start", (0, 9), (0, 4)),
    ("previous_word_start", (3, 0), (1, 6)),
    ("previous_word_start", (3, 5), (3, 0)),
    ("next_word_end", (0, 0), (0, 2)),
    ("next_word_end", (0, 6), (0, 13)),
    ("next_word_end", (3, 0), (3, 2)),  # 面 starts at col 2
    ("next_big_word_start", (0, 0), (0, 9)),
    ("next_big_word_start", (1, 2), (1, 6)),
    ("previous_big_word_start", (0, 9), (0, 0)),
    ("previous_big_word_start", (1, 6), (1, 2)),
    ("next_big_word_end", (0, 0), (0, 6)),
    ("next_big_word_end", (3, 5), (3, 9)),
    ("next_paragraph", (0, 5), (2, 5)),  # the column stays
    ("previous_paragraph", (3, 7), (2, 7)),
]


@pytest.mark.parametrize(
    ("motion", "start", "end"), MOTIONS, ids=[f"{m}-{s[0]}.{s[1]}" for m, s, _ in MOTIONS]
)
def test_copy_motion(
    shared_server: ServerHandle,
    text_pane: tuple[str, int],
    motion: str,
    start: tuple[int, int],
    end: tuple[int, int],
) -> None:
    pane, first = text_pane
    rev = revision(shared_server, pane)
    result = ok(
        shared_server,
        "pane.copy_motion",
        {
            "pane_id": pane,
            "cursor": point(first + start[0], start[1]),
            "motion": motion,
            "content_revision": rev,
        },
    )
    assert_valid_result(result)
    assert result == {
        "type": "pane_copy_motion",
        "pane_id": pane,
        "cursor": point(first + end[0], end[1]),
        "content_revision": rev,
    }


def test_copy_motion_with_nowhere_to_go_keeps_the_cursor(herdr_server: ServerHandle) -> None:
    pane, first, _ = printed(herdr_server)
    result = ok(
        herdr_server,
        "pane.copy_motion",
        {"pane_id": pane, "cursor": point(0, 0), "motion": "previous_word_start"},
    )
    assert result["cursor"] == point(0, 0)  # row 0 starts with the prompt
    stale = error(
        herdr_server,
        "pane.copy_motion",
        {
            "pane_id": pane,
            "cursor": point(first, 0),
            "motion": "line_end",
            "content_revision": revision(herdr_server, pane) + 1,
        },
    )
    assert stale["code"] == "stale_content"


# --- pane.copy_search -------------------------------------------------------------------


def search(server: ServerHandle, pane: str, query: str, **extra: Any) -> dict[str, Any]:
    params = {
        "pane_id": pane,
        "query": query,
        "direction": "forward",
        "cursor": point(0, 0),
        "content_revision": revision(server, pane),
        **extra,
    }
    result = ok(server, "pane.copy_search", params)
    assert_valid_result(result)
    return result


def test_copy_search_smartcase_and_stepping(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    rows = print_rows(
        herdr_server, pane, r"printf 'Needle one\nneedle two\nNEEDLE three\nDONE\n'", "DONE"
    )
    first = rows.index("Needle one")
    # The typed command line also contains the words: search from the first output row.
    result = search(herdr_server, pane, "needle", cursor=point(first, 0))
    found = [m["start"] for m in result["matches"]]
    assert point(first, 0) in found and point(first + 1, 0) in found
    assert point(first + 2, 0) in found
    assert result["total"] == len(found)
    assert result["matches"][result["current"]]["start"] == point(first + 1, 0)  # after cursor
    assert result["current_global"] == result["current"]

    upper = search(herdr_server, pane, "Needle", cursor=point(first, 0))
    starts = [m["start"] for m in upper["matches"]]
    assert point(first, 0) in starts
    assert point(first + 1, 0) not in starts and point(first + 2, 0) not in starts

    current = result["matches"][result["current"]]
    step = search(herdr_server, pane, "needle", cursor=point(first, 0), previous=current)
    assert step["matches"][step["current"]]["start"] == point(first + 2, 0)
    back = search(
        herdr_server, pane, "needle", cursor=point(first, 0), previous=current, direction="backward"
    )
    assert back["matches"][back["current"]]["start"] == point(first, 0)
    assert back["matches"][back["current"]]["end"] == point(first, 5)

    none = search(herdr_server, pane, "absent-text-zzz")
    assert none["matches"] == [] and none["total"] == 0
    assert none.get("current") is None


def test_copy_search_finds_across_a_soft_wrap(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    long = "".join(f"w{i:03d}" for i in range(100))
    rows = print_rows(herdr_server, pane, f"printf '{long}\\nafter\\n'", "after")
    start = next(i for i, row in enumerate(rows) if row.startswith("w000"))
    result = search(herdr_server, pane, "w099", cursor=point(start, 0))
    last = rows.index("after") - 1
    col = len(rows[last]) - 4
    assert {"start": point(last, col), "end": point(last, col + 3)} in result["matches"]
    width = len(rows[start])
    spanning = f"w{width // 4 - 1:03d}w{width // 4:03d}"  # the wrap falls between them
    across = search(herdr_server, pane, spanning, cursor=point(start, 0))
    assert across["total"] >= 1
    hit = next(m for m in across["matches"] if m["start"]["row"] == start)
    assert hit["end"]["row"] == start + 1


def test_copy_search_stale_revision(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    print_rows(herdr_server, pane, "echo hello", "hello")
    now = revision(herdr_server, pane)
    err = error(
        herdr_server,
        "pane.copy_search",
        {
            "pane_id": pane,
            "query": "hello",
            "direction": "backward",
            "cursor": point(0, 0),
            "content_revision": now + 7,
        },
    )
    assert err["code"] == "stale_content"


def test_copy_search_caps_matches_and_pings_are_answered(herdr_server: ServerHandle) -> None:
    """A big pane: ``total`` counts every match, ``matches`` holds at most 1024 around
    the current one, and other clients are answered while searches run."""
    pane = new_pane(herdr_server)
    print_rows(herdr_server, pane, "seq 1 3000 | sed 's/^/hit /'; echo FIN", "FIN")
    stop = threading.Event()
    pongs: list[str] = []

    def pinger() -> None:
        while not stop.is_set():
            reply = herdr_server.request("ping", {})
            pongs.append(reply["result"]["type"])

    thread = threading.Thread(target=pinger)
    thread.start()
    try:
        results = [search(herdr_server, pane, "hit ", cursor=point(2000, 0)) for _ in range(3)]
    finally:
        stop.set()
        thread.join()
    assert pongs and set(pongs) == {"pong"}
    for result in results:
        assert result["total"] >= 3000
        assert len(result["matches"]) == 1024
        current = result["matches"][result["current"]]
        assert current["start"]["row"] > 2000 or result["current_global"] == 0


@pytest.mark.parametrize(
    ("query", "found"),
    [
        (".*", False),  # literal, not a regex
        ("(x)", True),
        ("[", False),
        ("baz_1", True),
        ("BAZ_1", False),  # an upper-case letter makes it case-sensitive
        ("國面 ok", True),
        ("y\n", False),  # matches never span a hard line end
        ("x" * 4096, False),
    ],
    ids=["dot-star", "parens", "bracket", "word", "smartcase", "wide", "newline", "long"],
)
def test_copy_search_is_literal(
    shared_server: ServerHandle, text_pane: tuple[str, int], query: str, found: bool
) -> None:
    pane, first = text_pane
    result = search(shared_server, pane, query, cursor=point(first, 0))
    hits = [m for m in result["matches"] if m["start"]["row"] >= first]
    assert bool(hits) == found, result
    assert result["content_revision"] == revision(shared_server, pane)


def test_a_column_past_the_width_is_the_last_cell(
    shared_server: ServerHandle, text_pane: tuple[str, int]
) -> None:
    """Past the text is the line end: a word motion from there goes to the next line."""
    pane, first = text_pane
    result = ok(
        shared_server,
        "pane.copy_motion",
        {"pane_id": pane, "cursor": point(first, 65535), "motion": "next_word_start"},
    )
    assert result["cursor"] == point(first + 1, 2)
    back = ok(
        shared_server,
        "pane.copy_motion",
        {"pane_id": pane, "cursor": point(first, 65535), "motion": "previous_word_start"},
    )
    assert back["cursor"] == point(first, 9)


def test_a_query_over_the_pattern_cap_is_refused(
    shared_server: ServerHandle, text_pane: tuple[str, int]
) -> None:
    pane, _ = text_pane
    params = {
        "pane_id": pane,
        "query": "x" * (MAX_PATTERN_CHARS + 1),
        "direction": "forward",
        "cursor": point(0, 0),
        "content_revision": revision(shared_server, pane),
    }
    assert error(shared_server, "pane.copy_search", params)["code"] == "invalid_params"
