"""The attach stream's messages (PURE): every line the TUI and the server exchange.

A TUI client sends one ``client.attach`` request (:class:`AttachParams`) and keeps the
connection. The server answers with a normal success envelope whose result is
:class:`AttachStarted`, then both sides write NDJSON lines, one message each, told
apart by their ``t`` field (a tagged union):

* client → server (:data:`ClientMessage`): :class:`Input`, :class:`Paste`,
  :class:`Scroll`, :class:`Resize`, :class:`View`, :class:`Surface`. Nothing is
  answered (but :class:`Surface`); what they change shows in the next frame.
  Commands (split, close, focus…) go through the public methods on connections of
  their own.
* server → client (:data:`ServerMessage`): :class:`State`, :class:`Rows`, :class:`Bye`,
  :class:`SurfaceSet`, :class:`PopupOpened` / :class:`PopupClosed` (a plugin popup),
  and the client-local side effects sent to the foreground client only: :class:`Toast`
  and :class:`WindowTitle`.

This module is the one declaration: the server decodes client lines and encodes its
own with it, the client does the reverse, and ``herdr api schema`` lists the structs
(as the ``attach_stream`` extension). Decoding is msgspec's: straight into the
structs, cheaper than a dict and field look-ups on the keystroke path.

The server stays as lenient as it always was with what clients send: an unknown ``t``,
a line that is not a JSON object or lacks a required field is ignored; a field of the
wrong type counts as absent (a ``resize`` whose ``cols`` is not a 64-bit integer keeps
the width and still applies ``rows``) — see :func:`decode_client`.
"""

from __future__ import annotations

import contextlib
from functools import cache
from typing import Annotated, Any, Final, TypeAlias

import msgspec

from herdr.api.limits import MAX_SIZE_CELLS


def _doc(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
"""A JSON integer that fits 64 bits (a larger one is "not an integer" to the server)."""
Cells = Annotated[int, msgspec.Meta(ge=0, le=MAX_SIZE_CELLS)]
PaneId = Annotated[
    str | None, _doc("The target pane; null, absent or empty: the pane focused in the client's tab")
]
Latin1 = Annotated[str, _doc("The bytes, one character each (latin-1)")]

# ----------------------------------------------------------------------------- handshake


class AttachParams(msgspec.Struct, frozen=True, kw_only=True):
    """``client.attach`` params: the client's pane-area size and, optionally, its view."""

    cols: Annotated[Cells | None, _doc("Pane-area columns; 0 or absent: not known yet")] = None
    rows: Annotated[Cells | None, _doc("Pane-area rows; 0 or absent: not known yet")] = None
    workspace_id: str | None = None
    tab_id: str | None = None


class AttachStarted(msgspec.Struct, frozen=True, kw_only=True):
    """``client.attach`` result: the stream is open; lines follow on this connection."""

    type: Annotated[str, _doc("Always attach_started")] = "attach_started"
    client_id: str
    max_fps: Annotated[int, _doc("At most this many frames a second are pushed")]


# ----------------------------------------------------------------------------- client → server


class _FromClient(msgspec.Struct, frozen=True, kw_only=True, tag_field="t"):
    """A line the client sends."""


class Input(_FromClient, frozen=True, kw_only=True, tag="in"):
    """Keys typed into a pane (bytes exactly as the host terminal sent them)."""

    pane_id: PaneId = None
    data: Latin1


class Paste(_FromClient, frozen=True, kw_only=True, tag="paste"):
    """Pasted text; re-bracketed by the server when the pane enabled mode 2004."""

    pane_id: PaneId = None
    data: Latin1


class Scroll(_FromClient, frozen=True, kw_only=True, tag="scroll"):
    """Move a pane's viewport into its scrollback (mouse wheel, copy mode)."""

    pane_id: PaneId = None
    delta: Annotated[Int64, _doc("Rows; negative scrolls up; reaching 0 is the live bottom")] = 0


class Resize(_FromClient, frozen=True, kw_only=True, tag="resize"):
    """The client's pane-area size (clamped to 1..1000 each way; no answer)."""

    cols: Int64 | None = None
    rows: Int64 | None = None


class View(_FromClient, frozen=True, kw_only=True, tag="view"):
    """What the client shows: its workspace and tab, and whether its terminal has focus."""

    workspace_id: str | None = None
    tab_id: str | None = None
    focused: Annotated[bool | None, _doc("Host terminal focus; null or absent: unchanged")] = None


class Surface(_FromClient, frozen=True, kw_only=True, tag="surface"):
    """The client's surface-interest lease (herdr's ``client_shell.surface.set``).

    ``active: false``: send no pane rows (state only) and count no pane as viewed by
    this client until it sends ``active: true`` (the rows then come whole). Answered
    with :class:`SurfaceSet`; the lease ends with the connection.
    """

    active: bool


ClientMessage: TypeAlias = Input | Paste | Scroll | Resize | View | Surface
CLIENT_MESSAGES: Final = (Input, Paste, Scroll, Resize, View, Surface)

# ----------------------------------------------------------------------------- server → client

Rect4 = tuple[int, int, int, int]
PaneSlot = Annotated[
    tuple[str, int, int, int, int], _doc("[pane_id, x, y, width, height], pane-area cells")
]
SplitHandle = Annotated[
    tuple[list[bool], str, Rect4, Rect4],
    _doc("[path, direction, divider [x, y, w, h], split area [x, y, w, h]]"),
]


class TabLayout(msgspec.Struct, frozen=True, kw_only=True):
    """One tab's panes as displayed (zoom applied) and its dividers, for border drags."""

    zoomed: bool = False
    focused_pane_id: str
    panes: list[PaneSlot] = []
    splits: list[SplitHandle] = []


Record = dict[str, Any]


class StateDoc(msgspec.Struct, frozen=True, kw_only=True):
    """The session as the TUI needs it; re-sent whole whenever it changes."""

    workspaces: Annotated[list[Record], _doc("WorkspaceInfo records, in sidebar order")] = []
    tabs: Annotated[list[Record], _doc("TabInfo records of every workspace")] = []
    panes: Annotated[list[Record], _doc("PaneInfo records (+ state_change_seq for agents)")] = []
    layouts: Annotated[dict[str, TabLayout], _doc("Tab id → its layout")] = {}
    focused: Annotated[
        tuple[str | None, str | None, str | None], _doc("The session's focused ids")
    ] = (None, None, None)
    area: Annotated[tuple[int, int], _doc("The session's pane area [cols, rows]")] = (0, 0)
    agent_view: Annotated[
        Record | None, _doc("The agent.view.set projection of the sidebar's agent list")
    ] = None
    follow: Annotated[
        tuple[int, str | None, str | None] | None,
        _doc("[seq, workspace id, tab id] of the last focus change made by a script; views follow"),
    ] = None


class _FromServer(msgspec.Struct, frozen=True, kw_only=True, tag_field="t"):
    """A line the server pushes."""


class State(_FromServer, frozen=True, kw_only=True, tag="state"):
    """The state document; sent first, then after any lifecycle event or title/cwd change."""

    state: StateDoc


class Rows(_FromServer, frozen=True, kw_only=True, tag="rows"):
    """Changed styled rows of a visible pane, with the input modes the client mirrors."""

    pane_id: str
    size: Annotated[tuple[int, int], _doc("The pane's [cols, rows]")]
    rows: Annotated[list[tuple[int, str]], _doc("[y, ANSI row] for each changed row")]
    cursor: Annotated[tuple[int, int] | None, _doc("[x, y]; null while hidden")] = None
    mouse: Annotated[int, _doc("The pane's mouse tracking mode (0: off)")] = 0
    app_cursor: Annotated[bool, _doc("DECCKM: arrows as SS3")] = False
    kitty: Annotated[int, _doc("Kitty keyboard flags the pane's program pushed")] = 0
    mok: Annotated[int, _doc("The pane's modifyOtherKeys level")] = 0
    full: Annotated[bool, _doc("Every row is included (rows not listed are blank)")] = False
    offset: Annotated[int, _doc("Rows the viewport is scrolled up into the scrollback")] = 0
    total: Annotated[int, _doc("Scrollback plus screen rows; 0: not told (the height)")] = 0
    alt: Annotated[bool, _doc("The pane's program is on the alternate screen")] = False


class Bye(_FromServer, frozen=True, kw_only=True, tag="bye"):
    """The server is stopping; the stream ends after this line."""

    reason: str = ""


class Toast(_FromServer, frozen=True, kw_only=True, tag="toast"):
    """A notification.show for the foreground client only.

    Delivery ``herdr``: a toast drawn for ``seconds``; ``terminal``: an OSC 9 notice.
    """

    title: Annotated[str, _doc("Sanitised: no control characters, at most 80 characters")]
    body: Annotated[str, _doc("Sanitised likewise, at most 240 characters; may be empty")] = ""
    position: Annotated[
        str | None, _doc("top-left, top-right, bottom-left or bottom-right; null: the default")
    ] = None
    sound: Annotated[str, _doc("none, done or request: ring the bell unless none")] = "none"
    delivery: Annotated[str, _doc("herdr (draw a toast) or terminal (OSC 9)")] = "herdr"
    seconds: Annotated[float, _doc("How long the toast stays")] = 3.0


class WindowTitle(_FromServer, frozen=True, kw_only=True, tag="window_title"):
    """Set the host terminal's window title (OSC 2); null: restore the client's own.

    Sent to the foreground client only (``client.window_title.set`` / ``.clear``).
    """

    title: Annotated[str | None, _doc("Sanitised: printable text only")] = None


class SurfaceSet(_FromServer, frozen=True, kw_only=True, tag="surface_set"):
    """The acknowledgement of a :class:`Surface` lease (``client_shell_surface_set``)."""

    active: bool
    projection_revision: Annotated[int, _doc("Bumped by every layout or presentation change")]


class PopupOpened(_FromServer, frozen=True, kw_only=True, tag="popup_opened"):
    """A plugin popup is open (spec §9: one per session, outside every tab layout).

    Its rows follow as :class:`Rows` whose ``pane_id`` is ``popup_id``; keys typed into
    it are :class:`Input` with that id. Re-sent when its box moves (the area changed).
    """

    popup_id: Annotated[str, _doc("Names the popup in rows and input; not a pane id")]
    title: Annotated[str, _doc("The [[panes]] entry's title, for the border")] = ""
    plugin_id: str = ""
    entrypoint: str = ""
    rect: Annotated[Rect4, _doc("The outer box [x, y, w, h] in pane-area cells, border included")]


class PopupClosed(_FromServer, frozen=True, kw_only=True, tag="popup_closed"):
    """The popup ended (its process exited or ``popup.close``): draw what is under it."""

    popup_id: str


ServerMessage: TypeAlias = (
    State | Rows | Bye | Toast | WindowTitle | SurfaceSet | PopupOpened | PopupClosed
)
SERVER_MESSAGES: Final = (
    State,
    Rows,
    Bye,
    Toast,
    WindowTitle,
    SurfaceSet,
    PopupOpened,
    PopupClosed,
)

# ----------------------------------------------------------------------------- coding

_encoder: Final = msgspec.json.Encoder()


# Built on first use: building one evaluates its structs' annotations (~2 ms each side on
# a slow core), and a client only ever decodes server lines, a server client lines.
@cache
def _client_decoder() -> msgspec.json.Decoder[ClientMessage]:
    return msgspec.json.Decoder(ClientMessage)


@cache
def _server_decoder() -> msgspec.json.Decoder[ServerMessage]:
    return msgspec.json.Decoder(ServerMessage)


_any_decoder: Final = msgspec.json.Decoder()
_CLIENT_TAGS: Final[dict[object, type[ClientMessage]]] = {
    cls.__struct_config__.tag: cls for cls in CLIENT_MESSAGES
}
_SERVER_TAGS: Final = frozenset(cls.__struct_config__.tag for cls in SERVER_MESSAGES)


def encode_line(message: msgspec.Struct) -> bytes:
    """One NDJSON line."""
    return _encoder.encode(message) + b"\n"


def decode_client(line: bytes) -> ClientMessage | None:
    """A client's line as its message, or ``None`` for a line the server ignores.

    Lenient as the server always was: a field of the wrong type counts as absent
    (its default), so only a line without a known ``t`` or a required field is lost.
    """
    try:
        return _client_decoder().decode(line)
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError:
        return None  # not JSON
    raw = _any_decoder.decode(line)
    if not isinstance(raw, dict):
        return None
    cls = _CLIENT_TAGS.get(raw.get("t"))
    if cls is None:
        return None
    fields: dict[str, Any] = {}
    for field in msgspec.structs.fields(cls):
        if field.encode_name in raw:
            with contextlib.suppress(msgspec.ValidationError):  # wrong type: absent
                fields[field.name] = msgspec.convert(raw[field.encode_name], field.type)
    try:
        return cls(**fields)
    except TypeError:
        return None  # a required field is missing or unusable


def decode_server(line: bytes) -> ServerMessage | None:
    """A server line as its message; ``None`` for a kind this client does not know (a
    newer server). Raises ``ValueError`` (``msgspec.DecodeError``) for a broken line."""
    try:
        return _server_decoder().decode(line)
    except msgspec.ValidationError:
        raw = _any_decoder.decode(line)
        if isinstance(raw, dict) and isinstance(raw.get("t"), str) and raw["t"] not in _SERVER_TAGS:
            return None
        raise


def decode_state(doc: Any) -> StateDoc:
    """A state document given as plain values (tests, tools)."""
    return msgspec.convert(doc, StateDoc)
