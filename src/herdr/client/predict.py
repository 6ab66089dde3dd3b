"""Predictive local echo for a remote attach (PURE: every call takes ``now``).

Over a network the echo of a typed key is a round trip away. The client can often tell
what the echo will be — the character at the cursor — and draw it at once, as mosh does;
the server's rows then confirm or correct it. Our rules:

* Only printable ASCII is guessed, at the cursor of the focused pane, and only where the
  rest of that row is blank (typing at the end of a command line or an input box's last
  text): nothing to the right ever has to shift, so a guess can only be one cell wrong.
  Backspace takes back a guess the server has not confirmed yet. Any other key (Enter,
  arrows, control keys, bindings) ends the run: no guess until the pane's rows move.
* Guesses come in *epochs*: a new epoch starts after any key that is not guessed and
  after every wrong guess, and an epoch's guesses are drawn only once the server has
  confirmed one of them. A prompt that does not echo (a password, vim's normal mode)
  never confirms its first guess, so nothing it would not show is ever drawn.
* A guess is confirmed when the pane's rows show its character in its cell, and only
  after the guesses before it in its run (a space, whose cell was blank already, is
  taken as echoed when the cursor moves past it on its row, and confirms nothing of its
  run); wrong when the rows show something else there or when it is older than
  :func:`expiry` (then it and every later guess are dropped: their cells were counted
  from it; the time counts only once the pane's rows have moved since the key, up to
  :func:`hard_expiry` however quiet it is). A pane scrolled back shows history: its
  guesses are dropped.
* ``adaptive`` (the default) draws guesses only while the measured echo round trip is
  slow (above :data:`SHOW_ABOVE_S`, until it falls under :data:`HIDE_BELOW_S`); a fast
  link is left exactly as the server draws it. ``always`` draws them whatever the link;
  ``never`` makes none. Over :data:`UNDERLINE_ABOVE_S` a guess is underlined until its
  echo redraws it: on a link that slow, what is not confirmed yet is shown as such.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

from herdr.client.ansi import slice_ansi, strip_ansi
from herdr.client.mirror import PaneMirror

Mode = Literal["adaptive", "always", "never"]
MODES: Final[tuple[Mode, ...]] = ("adaptive", "always", "never")

SHOW_ABOVE_S: Final = 0.030  # adaptive: start drawing guesses above this round trip
HIDE_BELOW_S: Final = 0.020  # ... and stop below this one (no flapping in between)
UNDERLINE_ABOVE_S: Final = 0.080  # guesses are underlined while the round trip is this slow
MIN_EXPIRY_S: Final = 0.5  # a guess not confirmed this long after its key is wrong
MAX_EXPIRY_S: Final = 2.0
SMOOTHING: Final = 0.125  # weight of a new round-trip sample (TCP's SRTT gain)
MAX_PENDING: Final = 256  # typing far ahead of a dead link: stop guessing


class Guess(NamedTuple):
    """One typed character drawn (or to be drawn) at cell ``(x, y)`` of the pane."""

    x: int
    y: int
    char: str
    epoch: int
    at: float  # when its key was typed


def expiry(srtt: float | None) -> float:
    """How long a guess may wait for its echo once the pane's rows have moved since its
    key: two round trips and a margin."""
    rtt = srtt or 0.0
    return min(MAX_EXPIRY_S, max(MIN_EXPIRY_S, 2 * rtt + 0.1))


def hard_expiry(srtt: float | None) -> float:
    """How long a guess may wait however quiet the pane: a slow machine or link must
    not drop a right guess before its echo, a key never echoed must not stay drawn."""
    return max(MAX_EXPIRY_S, 3 * (srtt or 0.0))


def cell(row: str, x: int) -> str:
    """The text of cell ``x`` of a styled row (a space when blank)."""
    return strip_ansi(slice_ansi(row, x, 1)) or " "


def _past(cursor: tuple[int, int] | None, guess: Guess) -> bool:
    """Whether the server's cursor has moved past ``guess``'s cell on its row: a typed
    space is echoed when that happens (its cell was blank already)."""
    return cursor is not None and cursor[1] == guess.y and cursor[0] > guess.x


def _blank_from(row: str, x: int, width: int) -> bool:
    return width <= x or not strip_ansi(slice_ansi(row, x, width - x)).strip()


class Predictor:
    """The guesses for one client's focused pane; see the module docstring."""

    def __init__(self, mode: Mode) -> None:
        self.mode: Mode = mode
        self.pending: list[Guess] = []  # oldest first, in typing order
        self.epoch = 0
        self.confirmed = -1  # the newest epoch the server confirmed a guess of
        self.srtt: float | None = None  # smoothed key -> echo round trip
        self.slow = False  # adaptive: the link is slow enough to draw guesses
        self.stale = False  # a key was not guessed: wait for the rows to move
        self.pane: str | None = None
        self.moved_at = float("-inf")  # when the pane's rows last came
        self.shape: tuple[tuple[int, int], bool] | None = None  # (size, alt screen)

    # -- what is drawn -------------------------------------------------------------------

    def drawing(self) -> bool:
        """Whether guesses are drawn at all on this link now."""
        return self.mode == "always" or (self.mode == "adaptive" and self.slow)

    def shown(self) -> list[Guess]:
        """The guesses to draw: those of confirmed epochs (a prefix of the pending)."""
        if not self.pending or not self.drawing():
            return []
        confirmed = self.confirmed
        out: list[Guess] = []
        for guess in self.pending:
            if guess.epoch > confirmed:
                break
            out.append(guess)
        return out

    def overlay(
        self, pane_id: str | None, mirror: PaneMirror | None
    ) -> tuple[tuple[str, ...], tuple[int, int] | None] | None:
        """The pane's rows and cursor with the shown guesses drawn in; ``None`` when
        there is nothing to draw (or it is not the pane the guesses are for)."""
        shown = self.shown()
        if not shown or mirror is None or pane_id != self.pane or mirror.scroll[0]:
            return None
        width = mirror.size[0]
        rows = list(mirror.rows)
        slow = self.srtt is not None and self.srtt > UNDERLINE_ABOVE_S
        for guess in shown:
            if 0 <= guess.y < len(rows) and 0 <= guess.x < width:
                row = rows[guess.y]
                char = f"\x1b[4m{guess.char}\x1b[24m" if slow else guess.char
                rows[guess.y] = (
                    slice_ansi(row, 0, guess.x)
                    + char
                    + slice_ansi(row, guess.x + 1, width - guess.x - 1)
                )
        last = shown[-1]
        return tuple(rows), (last.x + 1, last.y)

    def deadline(self) -> float | None:
        """When the oldest pending guess expires (the caller's timer), if any."""
        if not self.pending:
            return None
        oldest = self.pending[0]
        if self.moved_at > oldest.at:
            return oldest.at + expiry(self.srtt)
        return oldest.at + hard_expiry(self.srtt)

    # -- keys ----------------------------------------------------------------------------

    def typed(
        self, pane_id: str | None, mirror: PaneMirror | None, data: bytes, now: float
    ) -> bool:
        """``data`` was sent to ``pane_id`` as typed keys; True when what is drawn
        changed (the caller redraws at once)."""
        if self.mode == "never":
            return False
        before = self.shown()
        self._follow(pane_id, mirror)
        if mirror is None or pane_id is None:
            self._interrupt()
            return bool(before)
        for byte in data:
            if byte in (0x7F, 0x08) and self.pending and not self.stale:
                self.pending.pop()  # not echoed yet: the server will erase it too
                continue
            if not 0x20 <= byte < 0x7F or not self._guess(mirror, chr(byte), now):
                self._interrupt()
                break
        return self.shown() != before

    def interrupt(self) -> bool:
        """A key that is not plain typing went to the pane (or to a binding)."""
        before = bool(self.shown())
        self._interrupt()
        return before and not self.shown()

    def _interrupt(self) -> None:
        self.epoch += 1
        self.stale = True

    def _guess(self, mirror: PaneMirror, char: str, now: float) -> bool:
        if self.stale or len(self.pending) >= MAX_PENDING or mirror.scroll[0]:
            return False
        if self.pending:
            last = self.pending[-1]
            x, y = last.x + 1, last.y
        elif mirror.cursor is not None:
            x, y = mirror.cursor
        else:
            return False  # the program hides its cursor: it draws its own
        width, height = mirror.size
        if not (0 <= y < min(height, len(mirror.rows)) and 0 <= x < width - 1):
            return False  # the last column wraps: not guessed
        if not _blank_from(mirror.rows[y], x, width):
            return False
        self.pending.append(Guess(x, y, char, self.epoch, now))
        return True

    # -- the server's rows -----------------------------------------------------------------

    def observe(
        self, pane_id: str | None, mirror: PaneMirror | None, now: float, *, moved: bool = True
    ) -> bool:
        """Judge the pending guesses against the pane as the server now shows it;
        ``moved``: its rows came (else only time passed, or other panes' rows came).
        True when what is drawn changed."""
        if self.mode == "never":
            return False
        before = self.shown()
        self._follow(pane_id, mirror)
        if moved:
            self.stale = False  # the server answered the key not guessed: guess again
            self.moved_at = now
        if mirror is None:
            self.pending.clear()
            return bool(before)
        if mirror.scroll[0]:
            self.pending.clear()  # scrolled back: the cells are history, not the echo
            return bool(before)
        soft, hard = expiry(self.srtt), hard_expiry(self.srtt)
        keep: list[Guess] = []
        for guess in self.pending:
            seen = cell(mirror.rows[guess.y], guess.x) if guess.y < len(mirror.rows) else ""
            waiting = any(g.epoch == guess.epoch for g in keep)  # confirmed in order only
            if seen == guess.char and guess.char != " " and not waiting:
                self.confirmed = max(self.confirmed, guess.epoch)
                self._sample(now - guess.at)
            elif guess.char == " " and not waiting and _past(mirror.cursor, guess):
                pass  # a space echoed: it goes, but proves nothing of its epoch
            elif (seen.strip() and seen != guess.char) or self._expired(guess, now, soft, hard):
                self.epoch += 1  # wrong: it and the guesses counted from it go
                break
            else:
                keep.append(guess)
        self.pending = keep
        return self.shown() != before

    def _expired(self, guess: Guess, now: float, soft: float, hard: float) -> bool:
        age = now - guess.at
        return age > hard or (age > soft and self.moved_at > guess.at)

    def _sample(self, rtt: float) -> None:
        srtt = self.srtt = rtt if self.srtt is None else self.srtt + SMOOTHING * (rtt - self.srtt)
        if srtt > SHOW_ABOVE_S:
            self.slow = True
        elif srtt < HIDE_BELOW_S:
            self.slow = False

    def _follow(self, pane_id: str | None, mirror: PaneMirror | None) -> None:
        """Another pane, size or screen: the guesses were for something else."""
        shape = (mirror.size, mirror.alt) if mirror is not None else None
        if pane_id != self.pane or shape != self.shape:
            self.pane, self.shape = pane_id, shape
            self.pending.clear()
            self.epoch += 1
            self.stale = False
