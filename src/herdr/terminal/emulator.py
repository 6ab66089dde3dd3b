"""The one adapter over the VT library (pyghostty / libghostty-vt).

Nothing else in herdr touches pyghostty (its private helper ghostty_ffi loads the same
library faster): keeping the surface small is what lets another emulator (pyavt, pyte)
stand in if the young C API breaks. pyghostty's ``Terminal`` wrapper is minimal, so
most calls go to the raw cffi ``lib``;
python-stack.md §1.6 lists the gotchas handled here (scrollback byte cap, one
VT-formatter call per pane instead of per row, replies wired to the PTY).
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from typing import Any

from msgspec import Struct

from herdr.terminal import ghostty_ffi
from herdr.terminal.escapes import EscapeWatch
from herdr.terminal.osc import OscTracker

_log = logging.getLogger(__name__)

# The cached out-of-line handle (fast start), else pyghostty's own; see ghostty_ffi.
ffi, lib, FFI_MODE = ghostty_ffi.load()
_SCROLL_VIEWPORT = ghostty_ffi.function_as(
    ffi, lib, "ghostty_terminal_scroll_viewport", "void(*)(GhosttyTerminal, HerdrScrollViewportS)"
)
_GRID_REF = ghostty_ffi.function_as(
    ffi,
    lib,
    "ghostty_terminal_grid_ref",
    "GhosttyResult(*)(GhosttyTerminal, GhosttyPointS, GhosttyGridRef*)",
)

# The scrollback is bounded in bytes, as herdr's ``advanced.scrollback_limit_bytes``
# (whose default this is), and in rows only far out: libghostty-vt trims a line-capped
# scrollback row by row but a byte-capped one a page at a time, and where a 10 000-line
# cap bound first (80-100 columns at 10 MB) plain output parsed 3.4x slower (74 vs 254
# MB/s at 80x50). At 20 000 rows the bytes bind first from ~60 columns; below that the
# rows cap what walks the whole buffer row by row (copy-mode search reads ~2.5 us a row,
# on the loop), docs/performance.md.
DEFAULT_SCROLLBACK_BYTES = 10_000_000
DEFAULT_SCROLLBACK_LINES = 20_000
_MAX_DIM = 0xFFFF

# DEC private modes the server cares about.
MODE_APP_CURSOR = 1
MODE_MOUSE_X10 = 9
MODE_MOUSE_PRESS_RELEASE = 1000
MODE_MOUSE_BUTTON_MOTION = 1002
MODE_MOUSE_ANY_MOTION = 1003
MODE_FOCUS_REPORTING = 1004
MODE_MOUSE_SGR = 1006
MODE_BRACKETED_PASTE = 2004
MODE_SYNCHRONIZED_OUTPUT = 2026

ReplyCallback = Callable[[bytes], None]
_SGR_RESET = "\x1b[0m"
MAX_HYPERLINK_BYTES = 65536
# How a dump enters the alternate screen (dropped from a primary dump, see replay_snapshot).
_ALT_ENTER = (b"\x1b[?1049h", b"\x1b[?1047h", b"\x1b[?47h")


class EmulatorError(RuntimeError):
    """A libghostty-vt call failed (never raised by ``feed``)."""


class InputModes(Struct, frozen=True):
    """Terminal modes that decide how keys, mouse and paste are encoded for the pane."""

    alternate_screen: bool
    application_cursor: bool
    bracketed_paste: bool
    focus_reporting: bool
    mouse_tracking: int  # 0, 9, 1000, 1002 or 1003 (the most detailed one set)
    mouse_sgr: bool
    kitty_flags: int = 0  # kitty keyboard protocol flags of the active screen
    modify_other_keys: int = 0  # xterm modifyOtherKeys level 0..2


def _check(result: int, what: str) -> None:
    if result != 0:
        raise EmulatorError(f"{what} failed: {result}")


def _clamp(value: int) -> int:
    return max(1, min(_MAX_DIM, int(value)))


class Emulator:
    """A headless terminal for one pane: feed PTY bytes, read rows, titles and modes.

    ``content_seq`` and ``revision`` grow on every feed and resize, so callers
    can tell "nothing changed" with one integer compare.
    """

    def __init__(
        self,
        cols: int,
        rows: int,
        scrollback_lines: int = DEFAULT_SCROLLBACK_LINES,
        scrollback_bytes: int = DEFAULT_SCROLLBACK_BYTES,
        on_reply: ReplyCallback | None = None,
    ) -> None:
        self._cols = _clamp(cols)
        self._rows = _clamp(rows)
        handle = ffi.new("GhosttyTerminal*")
        _check(lib.ghostty_terminal_new(ffi.NULL, handle, self._cols, self._rows), "terminal_new")
        self._t: Any = handle[0]
        self._set_size_t(lib.GHOSTTY_TERMINAL_OPT_SCROLLBACK_MAX_LINES, scrollback_lines)
        self._set_size_t(lib.GHOSTTY_TERMINAL_OPT_SCROLLBACK_MAX_BYTES, scrollback_bytes)

        rs = ffi.new("GhosttyRenderState*")
        _check(lib.ghostty_render_state_new(ffi.NULL, rs), "render_state_new")
        self._rs: Any = rs[0]
        it = ffi.new("GhosttyRenderStateRowIterator*")
        _check(lib.ghostty_render_state_row_iterator_new(ffi.NULL, it), "row_iterator_new")
        self._rows_it_ptr: Any = it
        self._rows_it: Any = it[0]
        self._finalizer = weakref.finalize(self, _free_native, self._t, self._rs, self._rows_it)
        # close() is the only way the native side goes while we live; a flag, because
        # ``finalize.alive`` is two Python calls and this is asked several times a chunk
        self._closed = False

        self._on_reply: ReplyCallback | None = on_reply
        self_ref = weakref.ref(self)

        def reply_trampoline(_t: Any, _userdata: Any, data: Any, length: int) -> None:
            # A weak reference: a cffi callback holding ``self`` would never be collected.
            emulator = self_ref()
            if emulator is not None:
                emulator._deliver_reply(bytes(ffi.buffer(data, length)))

        self._reply_cb: Any = ffi.callback("GhosttyTerminalWritePtyFn", reply_trampoline)
        _check(
            lib.ghostty_terminal_set(self._t, lib.GHOSTTY_TERMINAL_OPT_WRITE_PTY, self._reply_cb),
            "set write_pty",
        )

        # Scratch objects reused by every read (allocation is most of a read's cost).
        self._buf: Any = ffi.new("uint8_t[]", 64 * 1024)
        self._n: Any = ffi.new("size_t*")
        self._u16: Any = ffi.new("uint16_t*")
        self._u8: Any = ffi.new("uint8_t*")
        self._size: Any = ffi.new("size_t*")
        self._u64: Any = ffi.new("uint64_t*")
        self._int: Any = ffi.new("int*")
        self._bool: Any = ffi.new("bool*")
        self._str: Any = ffi.new("GhosttyString*")
        self._mode: Any = ffi.new("GhosttyTerminalModeConfig*")
        self._dirty: Any = ffi.new("GhosttyRenderStateDirty*")
        self._sel: Any = _new_sized("GhosttySelection")
        self._ref: Any = _new_sized("GhosttyGridRef")
        # Built once: filling nested ``size`` fields walks cffi type info (~0.2 ms a call),
        # which per read × subscribers × output chunks would starve the event loop.
        self._fmt_opts: Any = _new_sized("GhosttyFormatterTerminalOptions")
        self._fmt: Any = ffi.new("GhosttyFormatter*")
        self._point: Any = ffi.new("GhosttyPointS*")
        self._scroll: Any = ffi.new("HerdrScrollViewportS*")
        self._scroll_fn: Any = _SCROLL_VIEWPORT
        self._scrollbar: Any = ffi.new("GhosttyTerminalScrollbar*")
        self._grid_ref_fn: Any = _GRID_REF
        self._link_buf: Any = ffi.new("uint8_t[]", 2048)
        self._row: Any = ffi.new("GhosttyRow*")
        # What a client frame needs besides rows (cursor, visibility, scrollbar), read in
        # one library call per frame (frame_state) instead of five.
        self._fs_x: Any = ffi.new("uint16_t*")
        self._fs_y: Any = ffi.new("uint16_t*")
        self._fs_visible: Any = ffi.new("bool*")
        self._fs_bar: Any = ffi.new("GhosttyTerminalScrollbar*")
        self._fs_keys: Any = ffi.new(
            "GhosttyTerminalData[]",
            [
                lib.GHOSTTY_TERMINAL_DATA_CURSOR_X,
                lib.GHOSTTY_TERMINAL_DATA_CURSOR_Y,
                lib.GHOSTTY_TERMINAL_DATA_CURSOR_VISIBLE,
                lib.GHOSTTY_TERMINAL_DATA_SCROLLBAR,
            ],
        )
        outs = (self._fs_x, self._fs_y, self._fs_visible, self._fs_bar)
        self._fs_values: Any = ffi.new("void*[]", [ffi.cast("void*", p) for p in outs])
        self._fs_written: Any = ffi.new("size_t*")
        # The styled-rows formatter's options never change: set once, not per read.
        self._rows_opts: Any = _new_sized("GhosttyFormatterTerminalOptions")
        self._rows_opts.emit = lib.GHOSTTY_FORMATTER_FORMAT_VT
        self._rows_opts.unwrap = False
        self._rows_opts.trim = False
        self._rows_opts.extra.screen.style = False
        self._rows_opts.selection = self._sel
        # The viewport follows the bottom and nothing scrolled it since: scroll_offset is
        # 0 without asking the library (output, resizes and screen switches keep a
        # following viewport following; only the scroll calls below move it).
        self._follows = True

        self.osc = OscTracker()
        self.content_seq = 0
        self.revision = 0
        self._sent_rows: list[str | None] = [None] * self._rows
        # Modes change only through escape sequences: a chunk without one leaves the
        # cached answer valid, which keeps a keystroke's echo cheap (see escapes.py).
        self._modes: InputModes | None = None
        self._escapes = EscapeWatch()

    # -- lifecycle -----------------------------------------------------------

    def close(self) -> None:
        """Free the native terminal now (garbage collection does it otherwise)."""
        self._closed = True
        self._finalizer()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- input ---------------------------------------------------------------

    def set_on_reply(self, callback: ReplyCallback | None) -> None:
        """Where replies to the program (CPR, DA1/DA2, DECRQM…) go: the pane's PTY."""
        self._on_reply = callback

    def _deliver_reply(self, data: bytes) -> None:
        callback = self._on_reply
        if callback is None:
            return
        try:
            callback(data)
        except Exception:
            _log.exception("emulator reply callback failed")

    def feed(self, data: bytes) -> None:
        """Parse PTY output. Never raises: a pane may print anything."""
        if not data or self.closed:
            return
        self.content_seq += 1
        self.revision += 1
        if self._escapes.feed(data):
            self._modes = None
        try:
            self.osc.feed(data)
        except Exception:
            _log.exception("OSC tracker failed; resetting it")
            title, progress = self.osc.title, self.osc.progress
            self.osc = OscTracker()
            self.osc.title, self.osc.progress = title, progress
        try:
            lib.ghostty_terminal_vt_write(self._t, data, len(data))
        except Exception:
            _log.exception("libghostty-vt rejected a chunk")

    def resize(self, cols: int, rows: int) -> None:
        """Resize, reflowing the primary screen."""
        cols, rows = _clamp(cols), _clamp(rows)
        if (cols, rows) == (self._cols, self._rows):
            return
        _check(lib.ghostty_terminal_resize(self._t, cols, rows, 8, 16), "resize")
        self._cols, self._rows = cols, rows
        self._sent_rows = [None] * rows
        self._modes = None
        self.content_seq += 1
        self.revision += 1

    # -- scalar state ----------------------------------------------------------

    @property
    def cols(self) -> int:
        return self._cols

    @property
    def rows(self) -> int:
        return self._rows

    def _get(self, key: int, out: Any) -> Any:
        result = lib.ghostty_terminal_get(self._t, key, out)
        if result:
            _check(result, f"terminal_get {key}")  # the message is built only on failure
        return out[0]

    def _set_size_t(self, option: int, value: int) -> None:
        _check(lib.ghostty_terminal_set(self._t, option, ffi.new("size_t*", value)), "set")

    @property
    def cursor(self) -> tuple[int, int]:
        """Cursor (x, y) within the active screen, 0-based."""
        x = int(self._get(lib.GHOSTTY_TERMINAL_DATA_CURSOR_X, self._u16))
        y = int(self._get(lib.GHOSTTY_TERMINAL_DATA_CURSOR_Y, self._u16))
        return x, y

    @property
    def cursor_visible(self) -> bool:
        return bool(self._get(lib.GHOSTTY_TERMINAL_DATA_CURSOR_VISIBLE, self._bool))

    @property
    def alternate_screen(self) -> bool:
        """Whether a full-screen app switched to the alternate screen (?1049/?47)."""
        return int(self._get(lib.GHOSTTY_TERMINAL_DATA_ACTIVE_SCREEN, self._int)) != 0

    @property
    def total_rows(self) -> int:
        """Rows of the active screen including scrollback."""
        return int(self._get(lib.GHOSTTY_TERMINAL_DATA_TOTAL_ROWS, self._size))

    @property
    def scrollback_rows(self) -> int:
        return int(self._get(lib.GHOSTTY_TERMINAL_DATA_SCROLLBACK_ROWS, self._size))

    @property
    def scrollback_limits(self) -> tuple[int, int]:
        """(max lines, max bytes) actually configured in the library."""
        lines = int(self._get(lib.GHOSTTY_TERMINAL_DATA_SCROLLBACK_MAX_LINES, self._size))
        size = int(self._get(lib.GHOSTTY_TERMINAL_DATA_SCROLLBACK_MAX_BYTES, self._size))
        return lines, size

    @property
    def title(self) -> str:
        """Display title (last OSC 0/2); agent evidence lives in ``osc``."""
        return self.osc.terminal_title

    def library_title(self) -> str:
        """The title as libghostty-vt tracks it (for diagnostics)."""
        self._get(lib.GHOSTTY_TERMINAL_DATA_TITLE, self._str)
        s = self._str
        return bytes(ffi.buffer(s.ptr, s.len)).decode("utf-8", "replace") if s.len else ""

    def mode(self, number: int, ansi: bool = False) -> bool:
        """Whether DEC private mode ``number`` (or ANSI mode with ``ansi``) is set."""
        self._mode.mode = (number & 0x7FFF) | (int(ansi) << 15)
        _check(
            lib.ghostty_terminal_get(self._t, lib.GHOSTTY_TERMINAL_DATA_MODE, self._mode), "mode"
        )
        return bool(self._mode.value)

    def input_modes(self) -> InputModes:
        """The current input modes (cached until output carries an escape sequence)."""
        modes = self._modes
        if modes is None:
            modes = self._modes = self._query_modes()
        return modes

    def _query_modes(self) -> InputModes:
        tracking = 0
        for number in (
            MODE_MOUSE_ANY_MOTION,
            MODE_MOUSE_BUTTON_MOTION,
            MODE_MOUSE_PRESS_RELEASE,
            MODE_MOUSE_X10,
        ):
            if self.mode(number):
                tracking = number
                break
        return InputModes(
            alternate_screen=self.alternate_screen,
            application_cursor=self.mode(MODE_APP_CURSOR),
            bracketed_paste=self.mode(MODE_BRACKETED_PASTE),
            focus_reporting=self.mode(MODE_FOCUS_REPORTING),
            mouse_tracking=tracking,
            mouse_sgr=self.mode(MODE_MOUSE_SGR),
            kitty_flags=int(self._get(lib.GHOSTTY_TERMINAL_DATA_KITTY_KEYBOARD_FLAGS, self._u8)),
            modify_other_keys=self._escapes.modify_other_keys,
        )

    # -- viewport scrolling (never changes what detection reads) -------------------

    def scroll_viewport(self, delta_rows: int) -> None:
        """Scroll the viewport; negative is up into scrollback."""
        self._follows = False  # asked from the library until scroll_to_bottom
        self._scroll.tag = lib.GHOSTTY_SCROLL_VIEWPORT_DELTA
        self._scroll.value.delta = delta_rows
        self._scroll_fn(self._t, self._scroll[0])

    def scroll_to_bottom(self) -> None:
        self._scroll.tag = lib.GHOSTTY_SCROLL_VIEWPORT_BOTTOM
        self._scroll.value.delta = 0
        self._scroll_fn(self._t, self._scroll[0])
        self._follows = True

    def scroll_to_offset(self, offset: int) -> bool:
        """Put the viewport ``offset`` rows above the bottom (clamped to the scrollback);
        whether it moved."""
        before, most, _ = self.scroll_state
        target = max(0, min(offset, most))
        if target == before:
            return False
        if target == 0:
            self.scroll_to_bottom()
            return True
        self.scroll_viewport(before - target)
        if self.scroll_offset != target:  # the library's delta rounding: land exactly
            self.scroll_to_bottom()
            if target:
                self.scroll_viewport(-target)
        return True

    @property
    def scroll_offset(self) -> int:
        """Rows the viewport is above the bottom (0 = following output)."""
        if self._follows:
            return 0
        bar = self._get_struct(lib.GHOSTTY_TERMINAL_DATA_SCROLLBAR, self._scrollbar)
        return max(0, int(bar.total) - int(bar.offset) - int(bar.len))

    @property
    def scroll_state(self) -> tuple[int, int, int]:
        """(rows above the bottom, the most it can be, viewport rows): PaneScrollInfo."""
        bar = self._get_struct(lib.GHOSTTY_TERMINAL_DATA_SCROLLBAR, self._scrollbar)
        total, length = int(bar.total), int(bar.len)
        return max(0, total - int(bar.offset) - length), max(0, total - length), length

    def frame_state(self) -> tuple[int, int, tuple[int, int] | None]:
        """(``scroll_offset``, ``total_rows``, ``cursor`` or None while it is hidden), read
        in one library call: what a client's frame needs besides its rows."""
        result = lib.ghostty_terminal_get_multi(
            self._t, 4, self._fs_keys, self._fs_values, self._fs_written
        )
        if result:
            _check(result, "terminal_get_multi")
        bar = self._fs_bar
        total = int(bar.total)
        offset = max(0, total - int(bar.offset) - int(bar.len))
        cursor = (int(self._fs_x[0]), int(self._fs_y[0])) if self._fs_visible[0] else None
        return offset, total, cursor

    def _get_struct(self, key: int, out: Any) -> Any:
        result = lib.ghostty_terminal_get(self._t, key, out)
        if result:
            _check(result, f"terminal_get {key}")
        return out

    def viewport_text(self) -> str:
        """The rows the viewport currently shows (plain), for scroll-aware displays."""
        return self._format(
            0, self._rows - 1, lib.GHOSTTY_POINT_TAG_VIEWPORT, ansi=False, unwrap=False, trim=True
        )

    # -- links and clearing (pane.link.activate, pane.clear) -----------------------

    def hyperlink_at(self, col: int, row: int) -> str | None:
        """The OSC 8 URI of viewport cell (``col``, ``row``), or None (no link there).

        URIs are bounded (:data:`MAX_HYPERLINK_BYTES`): a longer one reads as no link.
        """
        if not (0 <= col < self._cols and 0 <= row < self._rows) or self.closed:
            return None
        self._grid_ref(col, row, lib.GHOSTTY_POINT_TAG_VIEWPORT)
        n = self._n
        buf = self._link_buf
        result = lib.ghostty_grid_ref_hyperlink_uri(self._ref, buf, len(buf), n)
        if result == lib.GHOSTTY_OUT_OF_SPACE and n[0] <= MAX_HYPERLINK_BYTES:
            buf = self._link_buf = ffi.new("uint8_t[]", int(n[0]))
            result = lib.ghostty_grid_ref_hyperlink_uri(self._ref, buf, len(buf), n)
        if result != lib.GHOSTTY_SUCCESS or n[0] == 0:
            return None
        return bytes(ffi.buffer(buf, n[0])).decode("utf-8", "replace")

    def row_wraps(self, row: int) -> bool:
        """Whether viewport ``row`` soft-wraps into the next one (one long logical line)."""
        if not 0 <= row < self._rows or self.closed:
            return False
        self._grid_ref(0, row, lib.GHOSTTY_POINT_TAG_VIEWPORT)
        if lib.ghostty_grid_ref_row(self._ref, self._row) != lib.GHOSTTY_SUCCESS:
            return False
        if lib.ghostty_row_get(self._row[0], lib.GHOSTTY_ROW_DATA_WRAP, self._bool):
            return False
        return bool(self._bool[0])

    def clear_screen_and_history(self) -> bool:
        """Forget the scrollback and every row above the cursor; the cursor's row (the
        shell prompt) moves to the top, as a terminal's "clear" action does. Nothing is
        sent to the program. False (and nothing changes) on the alternate screen."""
        if self.closed or self.alternate_screen:
            return False
        x, y = self.cursor
        seq = b"\x1b[H" + (b"\x1b[%dM" % y if y else b"")
        seq += b"\x1b[2;1H\x1b[J\x1b[3J" + b"\x1b[1;%dH" % (x + 1)
        self.content_seq += 1
        self.revision += 1
        lib.ghostty_terminal_vt_write(self._t, seq, len(seq))
        return True

    # -- replayable snapshot (live handoff) ---------------------------------------

    def replay_snapshot(self) -> bytes:
        """Bytes that rebuild this terminal in a fresh emulator of the same size: the
        primary screen with its scrollback, then (when it is active) the alternate one,
        each with cursor, pen, modes, scroll region, tab stops, charsets, keyboard modes.

        Used by the live handoff: the new server feeds them before adopting the PTY. To
        read the inactive primary screen under an alternate one, the screens are swapped
        with mode 47 (which keeps both contents) and swapped back; nothing is sent to the
        program and the revision does not move.
        """
        if self.closed:
            return b""
        if not self.alternate_screen:
            return self._vt_dump()
        alternate = self._vt_dump()
        lib.ghostty_terminal_vt_write(self._t, b"\x1b[?47l", 6)
        try:
            primary = self._vt_dump()
        finally:
            lib.ghostty_terminal_vt_write(self._t, b"\x1b[?47h", 6)
        for enter in _ALT_ENTER:  # still set while we peeked: it must not move the dump
            primary = primary.replace(enter, b"")
        return primary + alternate

    def _vt_dump(self) -> bytes:
        opts = _new_sized("GhosttyFormatterTerminalOptions")
        opts.emit = lib.GHOSTTY_FORMATTER_FORMAT_VT
        opts.unwrap = False
        opts.trim = False
        extra = opts.extra
        for name in ("modes", "scrolling_region", "tabstops", "pwd", "keyboard"):
            setattr(extra, name, True)
        for name in ("cursor", "style", "hyperlink", "protection", "kitty_keyboard", "charsets"):
            setattr(extra.screen, name, True)
        opts.selection = ffi.NULL
        fmt = ffi.new("GhosttyFormatter*")
        _check(lib.ghostty_formatter_terminal_new(ffi.NULL, fmt, self._t, opts[0]), "formatter_new")
        out = ffi.new("uint8_t**")
        size = ffi.new("size_t*")
        try:
            _check(lib.ghostty_formatter_format_alloc(fmt[0], ffi.NULL, out, size), "format")
            try:
                return bytes(ffi.buffer(out[0], size[0]))
            finally:
                lib.ghostty_free(ffi.NULL, out[0], size[0])
        finally:
            lib.ghostty_formatter_free(fmt[0])

    # -- formatted reads -------------------------------------------------------

    def _grid_ref(self, x: int, y: int, tag: int) -> Any:
        point = self._point
        point.tag = tag
        point.value.x = x
        point.value.y = y
        result = self._grid_ref_fn(self._t, point[0], self._ref)
        if result:
            _check(result, f"grid_ref {x},{y}")
        return self._ref[0]

    def _format(
        self, y0: int, y1: int, tag: int, *, ansi: bool, unwrap: bool, trim: bool, pen: bool = True
    ) -> str:
        """Format full-width rows ``y0..y1`` (inclusive) with one formatter call.

        ``pen`` appends the cursor's current style (ANSI only): right for a replayable
        dump, wrong for display rows, where it would stick to whichever row is last.
        """
        sel = self._sel
        sel.start = self._grid_ref(0, y0, tag)
        sel.end = self._grid_ref(self._cols - 1, y1, tag)
        return self._format_selection(ansi=ansi, unwrap=unwrap, trim=trim, pen=pen)

    def _format_selection(self, *, ansi: bool, unwrap: bool, trim: bool, pen: bool = True) -> str:
        """Format what ``self._sel`` spans (see ``_format``)."""
        sel = self._sel
        opts = self._fmt_opts
        opts.emit = lib.GHOSTTY_FORMATTER_FORMAT_VT if ansi else lib.GHOSTTY_FORMATTER_FORMAT_PLAIN
        opts.unwrap = unwrap
        opts.trim = trim
        opts.extra.screen.style = ansi and pen
        opts.selection = sel
        return self._run_formatter(opts)

    def _run_formatter(self, opts: Any) -> str:
        """Format with ``opts`` (a ``GhosttyFormatterTerminalOptions*``) into ``_buf``."""
        fmt = self._fmt
        if result := lib.ghostty_formatter_terminal_new(ffi.NULL, fmt, self._t, opts[0]):
            _check(result, "formatter_new")
        try:
            result = lib.ghostty_formatter_format_buf(fmt[0], self._buf, len(self._buf), self._n)
            if result == lib.GHOSTTY_OUT_OF_SPACE:
                self._buf = ffi.new("uint8_t[]", max(self._n[0], 2 * len(self._buf)))
                result = lib.ghostty_formatter_format_buf(
                    fmt[0], self._buf, len(self._buf), self._n
                )
            if result:
                _check(result, "formatter_format")
            return bytes(ffi.buffer(self._buf, self._n[0])).decode("utf-8", "replace")
        finally:
            lib.ghostty_formatter_free(fmt[0])

    def screen_text(
        self, start_row: int, end_row: int, *, ansi: bool = False, unwrap: bool = False
    ) -> str:
        """Rows ``start_row..end_row`` of scrollback+screen (0 = oldest), as formatted text.

        Plain text has ``\\n`` line breaks and trimmed rows; ANSI (SGR only, each row
        ending in a reset) has ``\\r\\n``. Trailing blank rows are left out.
        """
        total = self.total_rows
        start, end = max(0, start_row), min(total - 1, end_row)
        if total <= 0 or start > end:
            return ""
        return self._format(
            start, end, lib.GHOSTTY_POINT_TAG_SCREEN, ansi=ansi, unwrap=unwrap, trim=not ansi
        )

    def screen_rows(self, start_row: int, end_row: int) -> list[tuple[str, bool]]:
        """Rows ``start_row..end_row`` of scrollback+screen (0 = oldest, clamped) as
        (plain text with trailing blanks trimmed, soft-wrapped into the next row)."""
        total = self.total_rows
        start, end = max(0, start_row), min(total - 1, end_row)
        if total <= 0 or start > end:
            return []
        text = self._format(
            start, end, lib.GHOSTTY_POINT_TAG_SCREEN, ansi=False, unwrap=False, trim=True
        )
        texts = _fit(text.split("\n"), end - start + 1)
        return [(row, self._row_wraps(start + i)) for i, row in enumerate(texts)]

    def _row_wraps(self, y: int) -> bool:
        self._grid_ref(0, y, lib.GHOSTTY_POINT_TAG_SCREEN)
        if lib.ghostty_grid_ref_row(self._ref, self._u64) != 0:
            return False
        if lib.ghostty_row_get(self._u64[0], lib.GHOSTTY_ROW_DATA_WRAP, self._bool) != 0:
            return False
        return bool(self._bool[0])

    def selection_text(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        """Plain text from cell ``start`` to ``end`` (inclusive; (row, col) with absolute
        rows as in ``screen_text``, in reading order): soft-wrapped rows are joined,
        trailing blanks of each line trimmed, as a terminal copies a selection."""
        (y0, x0), (y1, x1) = sorted((start, end))
        last_col = self._cols - 1
        sel = self._sel
        sel.start = self._grid_ref(min(x0, last_col), y0, lib.GHOSTTY_POINT_TAG_SCREEN)
        sel.end = self._grid_ref(min(x1, last_col), y1, lib.GHOSTTY_POINT_TAG_SCREEN)
        return self._format_selection(ansi=False, unwrap=True, trim=True)

    def active_text(self, *, ansi: bool = False) -> str:
        """The visible screen (never scrolled) as formatted text; see ``screen_text``."""
        return self._format(
            0, self._rows - 1, lib.GHOSTTY_POINT_TAG_ACTIVE, ansi=ansi, unwrap=False, trim=not ansi
        )

    def ansi_rows(self, first: int = 0, last: int | None = None) -> list[str]:
        """Styled rows ``first..last`` (default: all) for clients, from one formatter call.

        Every row stands alone (it ends in a reset), so a range reads exactly the
        strings a whole-screen read would: typing formats one row, not the screen.
        """
        end = self._rows - 1 if last is None else min(last, self._rows - 1)
        start = max(0, first)
        if start > end:
            return []
        sel = self._sel
        sel.start = self._grid_ref(0, start, lib.GHOSTTY_POINT_TAG_ACTIVE)
        sel.end = self._grid_ref(self._cols - 1, end, lib.GHOSTTY_POINT_TAG_ACTIVE)
        text = self._run_formatter(self._rows_opts)  # VT, untrimmed, no pen
        if text.endswith(_SGR_RESET):  # the formatter's final reset, not part of a row
            text = text[: -len(_SGR_RESET)]
        rows = [
            r + _SGR_RESET if "\x1b[" in r and not r.endswith(_SGR_RESET) else r
            for r in text.split("\r\n")
        ]
        return _fit(rows, end - start + 1)

    def text_rows(self) -> list[str]:
        """Exactly ``rows`` plain rows of the visible screen (trailing spaces trimmed)."""
        return _fit(self.active_text().split("\n"), self._rows)

    def bottom_rows(self, n: int) -> list[str]:
        """The last ``n`` plain rows of the visible screen (clamped to the height)."""
        n = max(0, min(n, self._rows))
        if n == 0:
            return []
        text = self._format(
            self._rows - n,
            self._rows - 1,
            lib.GHOSTTY_POINT_TAG_ACTIVE,
            ansi=False,
            unwrap=False,
            trim=True,
        )
        return _fit(text.split("\n"), n)

    # -- dirty rows ------------------------------------------------------------

    def take_changed_rows(self, scrolled: bool | None = None) -> dict[int, str]:
        """Styled rows that changed since the last call, keyed by row index.

        Uses the render-state dirty iterator to know *where* to look, then
        compares against what was last handed out: libghostty-vt also flags rows
        that were rewritten with identical content. ``scrolled``: whether the viewport
        is scrolled, when the caller just asked (one query less per frame).
        """
        if result := lib.ghostty_render_state_update(self._rs, self._t):
            _check(result, "render_state_update")
        if result := lib.ghostty_render_state_get(
            self._rs, lib.GHOSTTY_RENDER_STATE_DATA_DIRTY, self._dirty
        ):
            _check(result, "dirty")
        state = self._dirty[0]
        if state == lib.GHOSTTY_RENDER_STATE_DIRTY_FALSE:
            return {}
        if state == lib.GHOSTTY_RENDER_STATE_DIRTY_FULL or (
            self.scroll_offset if scrolled is None else scrolled
        ):
            # Every row (the iterator would list them all: scrolling output, a clear, a
            # screen switch); a scrolled viewport's flags are not the active screen's.
            dirty = list(range(self._rows))
        else:
            _check(
                lib.ghostty_render_state_get(
                    self._rs, lib.GHOSTTY_RENDER_STATE_DATA_ROW_ITERATOR, self._rows_it_ptr
                ),
                "row_iterator",
            )
            dirty = []
            while lib.ghostty_render_state_row_iterator_next_dirty(self._rows_it, self._u16):
                dirty.append(int(self._u16[0]))
            dirty = [y for y in dirty if y < self._rows]
        lib.ghostty_render_state_clean(self._rs)
        if not dirty:
            return {}
        first, last = min(dirty), max(dirty)
        rows = self.ansi_rows(first, last)
        sent = self._sent_rows
        changed: dict[int, str] = {}
        for y in dirty:
            row = rows[y - first]
            if sent[y] != row:
                sent[y] = row
                changed[y] = row
        return changed

    def forget_sent_rows(self) -> None:
        """Make the next ``take_changed_rows`` report every row (e.g. a new client)."""
        self._sent_rows = [None] * self._rows


def _fit(rows: list[str], count: int) -> list[str]:
    if len(rows) >= count:
        return rows[:count]
    return rows + [""] * (count - len(rows))


def _new_sized(ctype: str) -> Any:
    """``ffi.new`` a struct and fill in its (nested) ``size`` fields."""
    pointer = ffi.new(ctype + "*")
    _set_sizes(pointer)
    return pointer


def _set_sizes(pointer: Any) -> None:
    struct = ffi.typeof(pointer).item
    for name, field in struct.fields:
        if name == "size":
            pointer.size = ffi.sizeof(struct)
        elif field.type.kind == "struct":
            _set_sizes(ffi.addressof(pointer[0], name))


def _free_native(terminal: Any, render_state: Any, row_iterator: Any) -> None:
    lib.ghostty_render_state_row_iterator_free(row_iterator)
    lib.ghostty_render_state_free(render_state)
    lib.ghostty_terminal_free(terminal)
