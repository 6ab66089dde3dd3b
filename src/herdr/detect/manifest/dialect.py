"""Rust ``regex`` crate syntax → third-party ``regex`` module (detection-spec §5.3).

Manifests are written for the Rust crate. Python's ``re`` cannot express them
(``\\p{Alphabetic}``, Unicode ``\\s``/``\\w``/``\\b``); the ``regex`` module can after
a mechanical rewrite done once at load time by a small tokenizer:

* ``\\x{H…}``/``\\u{H…}``/``\\U{H…}`` (and the fixed-width forms) → ``\\UHHHHHHHH``;
* ``$`` without multi-line → ``\\Z`` (Python's ``$`` also matches before a final
  newline), ``\\z`` → ``\\Z``; ``\\<``/``\\>``/``\\b{start}``/``\\b{end}`` → ``\\m``/``\\M``;
* a quantifier directly after another is Rust's "repeat the repetition", not
  possessive: the quantified atom is wrapped in ``(?:…)`` first;
* inline flags become scoped groups, because in ``regex`` VERSION0 a mid-pattern
  ``(?i)`` would apply to the whole pattern while Rust applies it to the rest of
  the enclosing group; ``(?x)`` whitespace/comments are stripped here;
* POSIX classes (ASCII-only in Rust, Unicode in ``regex``) become explicit ranges;
* constructs Rust rejects (look-around, back-references, ``\\Q``, ``\\K``, …) are
  rejected so a manifest invalid for herdr is invalid here too.

Two error types separate "invalid for herdr too" (a validation failure) from
"valid Rust that this port cannot express" (a compile failure, §7.2 warnings).
"""

from __future__ import annotations

from dataclasses import dataclass

import regex
from msgspec import Struct

from herdr.detect.agents import WHITE_SPACE

REGEX_FLAGS = regex.VERSION0
"""VERSION0: no full case folding (Rust uses simple folding), no set operations."""

MAX_PATTERN_SIZE = 10_000
"""Estimated expanded size limit, the analogue of Rust's compiled-size limit.

``regex`` has no such limit and compiling ``(?:a{65535}){65535}`` never finishes.
"""

_MAX_SCALAR = 0x10FFFF
_MAX_BOUND = 10**12
_SIMPLE_REPEATS: dict[str, tuple[int, int | None]] = {"*": (0, None), "+": (1, None), "?": (0, 1)}
UNTIMED_STEP_LIMIT = 50_000
"""Searches whose static worst case stays below this many steps skip the timeout."""
_MAX_REQUIRED = 4
_ALLOWED_FLAGS = "imsUuxR"
_HEX = "0123456789abcdefABCDEF"


class RegexSyntaxError(ValueError):
    """The pattern is not valid Rust ``regex`` syntax (or exceeds the size limit)."""


class RegexUnsupportedError(ValueError):
    """The pattern is valid Rust syntax that the Python translation does not support."""


# POSIX classes as ASCII ranges (Rust semantics), inclusive code point pairs.
_POSIX: dict[str, tuple[tuple[int, int], ...]] = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}


_CONTROL_ESCAPES = {"a": "\a", "f": "\f", "t": "\t", "n": "\n", "r": "\r", "v": "\v"}

# In relaxed line patterns, classes that could match ``\n`` exclude it (lines have none).
_NO_NEWLINE_CLASSES = {"s": "[^\\S\\n]", "W": "[^\\w\\n]", "D": "[^\\d\\n]"}


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    start = 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX_SCALAR:
        out.append((start, _MAX_SCALAR))
    return tuple(out)


def _char_escape(code: int) -> str:
    return f"\\U{code:08X}"


def _ranges_text(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = []
    for lo, hi in ranges:
        parts.append(_char_escape(lo) if lo == hi else f"{_char_escape(lo)}-{_char_escape(hi)}")
    return "".join(parts)


@dataclass
class _Frame:
    """One group level: flags in force, output position, alternation bookkeeping."""

    flags: frozenset[str]
    out_start: int
    synthetic: int = 0  # scoped groups opened for bare ``(?flags)`` in this group
    branches_size: int = 0
    cur_size: int = 0
    # The last atom of the current branch: output index, size, quantified?, needs wrap?
    atom_start: int | None = None
    atom_size: int = 0
    atom_quantified: bool = False
    atom_is_assertion: bool = False
    # Backtracking bound K·(n+1)^d of the current branch (finished atoms), of the
    # finished alternatives (sum of K, max of d) and of the pending last atom.
    branch_k: int = 1
    branch_d: int = 0
    alt_k: int = 0
    alt_d: int = 0
    atom_k: int = 1
    atom_d: int = 0

    def fold_atom(self) -> None:
        self.branch_k *= self.atom_k
        self.branch_d += self.atom_d
        self.atom_k, self.atom_d = 1, 0

    def end_branch(self) -> None:
        self.fold_atom()
        self.alt_k += self.branch_k
        self.alt_d = max(self.alt_d, self.branch_d)
        self.branch_k, self.branch_d = 1, 0


class _Translator:
    """Single left-to-right pass over a Rust pattern producing ``regex`` syntax."""

    def __init__(self, pattern: str, *, line_mode: bool, newline_lead: bool) -> None:
        self.p = pattern
        self.i = 0
        self.out: list[str] = []
        self.line_mode = line_mode
        self.newline_lead = newline_lead
        self.used_newline = False
        self.root_alternation = False
        self.plain_anchor = False  # a ``^``/``\A`` meaning "start of text" (exact mode)
        # Literal text every match must contain: runs of case-sensitive literal
        # characters in the top-level concatenation (see Translation.required).
        self.literal_run: list[str] = []
        self.required: list[str] = []
        self.last_in_run = False
        self.frames: list[_Frame] = [_Frame(frozenset(), 0)]
        self.group_names: set[str] = set()
        self.unbounded_backtracking = False  # a repeated sub-pattern that has choices

    # -- helpers -------------------------------------------------------------

    @property
    def frame(self) -> _Frame:
        return self.frames[-1]

    def peek(self, offset: int = 0) -> str:
        j = self.i + offset
        return self.p[j] if j < len(self.p) else ""

    def syntax(self, message: str) -> RegexSyntaxError:
        return RegexSyntaxError(f"{message} at offset {self.i}")

    def unsupported(self, message: str) -> RegexUnsupportedError:
        return RegexUnsupportedError(f"{message} at offset {self.i}")

    def at_pattern_start(self) -> bool:
        """Nothing but flag groups so far, at the top level."""
        root = self.frames[0]
        return len(self.frames) == 1 and root.cur_size == 0 and not self.root_alternation

    def start_anchor(self, *, multi_line: bool) -> None:
        """``^`` or ``\\A``; a leading one may become a consumed ``\\n`` (see translate_pattern)."""
        if self.newline_lead and (self.line_mode or multi_line) and self.at_pattern_start():
            self.used_newline = True
            self.emit_atom("\\n", assertion=True)
        elif self.line_mode:
            self.emit_atom("(?m:^)", assertion=True)
        elif multi_line:
            self.emit_atom("^", assertion=True)
        else:
            self.plain_anchor = True
            self.emit_atom("\\A", assertion=True)

    def end_anchor(self) -> None:
        """``$`` is end of text unless multi-line (Python's also matches before a final ``\\n``)."""
        if self.line_mode:
            self.emit_atom("(?m:$)", assertion=True)
        elif "m" in self.frame.flags:
            self.emit_atom("$", assertion=True)
        else:
            self.emit_atom("\\Z", assertion=True)

    def flush_run(self) -> None:
        if self.literal_run:
            self.required.append("".join(self.literal_run))
            self.literal_run = []
        self.last_in_run = False

    def emit_atom(
        self, text: str, *, size: int = 1, assertion: bool = False, literal: str | None = None
    ) -> None:
        f = self.frame
        if len(self.frames) == 1:
            if literal is not None and "i" not in f.flags:
                self.literal_run.append(literal)
                self.last_in_run = True
            else:
                self.flush_run()
        f.atom_start = len(self.out)
        f.atom_size = size
        f.atom_quantified = False
        f.atom_is_assertion = assertion
        f.cur_size += size
        f.fold_atom()
        self.out.append(text)

    def reset_atom(self) -> None:
        f = self.frame
        f.atom_start = None
        f.atom_size = 0
        f.atom_quantified = False
        f.atom_is_assertion = False

    @staticmethod
    def explicit_flags(flags: frozenset[str]) -> str:
        on = "".join(c for c in "ims" if c in flags)
        off = "".join(c for c in "ims" if c not in flags)
        return f"(?{on}-{off}:" if off else f"(?{on}:"

    def skip_extended(self) -> bool:
        """In ``(?x)`` mode skip whitespace and ``#`` comments; True if anything was skipped."""
        if "x" not in self.frame.flags:
            return False
        skipped = False
        while self.i < len(self.p):
            c = self.p[self.i]
            if c in WHITE_SPACE:
                self.i += 1
                skipped = True
            elif c == "#":
                end = self.p.find("\n", self.i)
                self.i = len(self.p) if end < 0 else end + 1
                skipped = True
            else:
                break
        return skipped

    # -- driver --------------------------------------------------------------

    def run(self) -> str:
        while self.i < len(self.p):
            if self.skip_extended():
                continue
            c = self.p[self.i]
            if c == "\\":
                self.escape()
            elif c == "[":
                self.char_class()
            elif c == "(":
                self.open_group()
            elif c == ")":
                self.close_group()
            elif c == "|":
                self.alternate()
            elif c in "*+?":
                self.i += 1
                self.quantifier(c, 1, *_SIMPLE_REPEATS[c])
            elif c == "{":
                self.counted()
            elif c == "^":
                self.i += 1
                self.start_anchor(multi_line="m" in self.frame.flags)
            elif c == "$":
                self.i += 1
                self.end_anchor()
            elif c == ".":
                self.i += 1
                # Relaxed line patterns never cross a newline (see translate_pattern).
                self.emit_atom("[^\\n]" if self.line_mode and "s" in self.frame.flags else ".")
            else:
                self.i += 1
                self.emit_atom(regex.escape(c) if c in "#&~-" else c, literal=c)
        if len(self.frames) > 1:
            raise self.syntax("unclosed group")
        self.out.append(")" * self.frame.synthetic)
        return "".join(self.out)

    def size(self) -> int:
        f = self.frames[0]
        return f.branches_size + f.cur_size

    # -- quantifiers -----------------------------------------------------------

    def quantifier(self, text: str, factor: int, low: int, high: int | None) -> None:
        f = self.frame
        if f.atom_start is None:
            raise self.syntax("repetition operator missing expression")
        if self.last_in_run:
            # A repeated (maybe absent) character is not a fixed part of the run.
            self.literal_run.pop()
            self.flush_run()
        if self.peek() == "?":  # lazy; irrelevant for existence but kept verbatim
            self.i += 1
            text += "?"
        if f.atom_quantified or f.atom_is_assertion:
            # Rust stacks repetitions (``a*+`` = ``(?:a*)+``); Python would read a
            # possessive quantifier or reject repeating an assertion.
            self.out.insert(f.atom_start, "(?:")
            self.out.append(")")
        self.out.append(text)
        self.bound_repetition(f, low, high)
        f.cur_size += f.atom_size * (factor - 1)
        f.atom_size *= factor
        f.atom_quantified = True
        f.atom_is_assertion = False
        if f.cur_size > MAX_PATTERN_SIZE:
            raise RegexSyntaxError(f"compiled regex exceeds size limit of {MAX_PATTERN_SIZE}")

    def bound_repetition(self, f: _Frame, low: int, high: int | None) -> None:
        """Update the pending atom's backtracking bound for a repetition."""
        simple = f.atom_k == 1 and f.atom_d == 0  # one way to match each repetition
        if high is None:
            if simple:
                f.atom_d = 1  # up to n+1 ways to split the text
            else:
                self.unbounded_backtracking = True
        elif simple:
            f.atom_k = high - low + 1
        else:
            k = f.atom_k**high * (high - low + 1) if high * f.atom_k.bit_length() < 64 else 0
            if not k or k > _MAX_BOUND:
                self.unbounded_backtracking = True
            f.atom_k, f.atom_d = max(k, 1), f.atom_d * high

    def read_decimal(self) -> int | None:
        self.skip_extended()
        start = self.i
        while self.peek().isascii() and self.peek().isdigit():
            self.i += 1
        digits = self.p[start : self.i]
        self.skip_extended()
        if not digits:
            return None
        value = int(digits)
        if value > 2**32 - 1:
            raise self.syntax("decimal literal invalid")
        return value

    def counted(self) -> None:
        self.i += 1  # '{'
        low = self.read_decimal()
        if low is None:
            raise self.syntax("invalid counted repetition (missing minimum)")
        high: int | None = low
        if self.peek() == ",":
            self.i += 1
            high = self.read_decimal()
        if self.peek() != "}":
            raise self.syntax("unclosed counted repetition")
        self.i += 1
        if high is not None and high < low:
            raise self.syntax("invalid counted repetition (min > max)")
        if high == low:
            text = f"{{{low}}}"
        elif high is None:
            text = f"{{{low},}}"
        else:
            text = f"{{{low},{high}}}"
        self.quantifier(text, max(low, high or 0, 1), low, high)

    # -- groups and alternation -------------------------------------------------

    def alternate(self) -> None:
        self.i += 1
        f = self.frame
        if len(self.frames) == 1:
            self.root_alternation = True
            self.flush_run()
        self.out.append(")" * f.synthetic)
        self.out.append("|")
        if f.synthetic:
            # Rust flags persist across ``|`` until the group ends: reopen them.
            self.out.append(self.explicit_flags(f.flags))
            f.synthetic = 1
        f.branches_size += f.cur_size
        f.end_branch()
        f.cur_size = 0
        self.reset_atom()

    def open_group(self) -> None:
        self.i += 1
        if len(self.frames) == 1:
            self.flush_run()
        out_start = len(self.out)
        flags = self.frame.flags
        if self.peek() != "?":
            self.push_group(out_start, flags, "(?:")
            return
        self.i += 1
        c = self.peek()
        if c == "P" and self.peek(1) == "<":
            self.i += 2
            self.named_group(out_start)
        elif c == "<" and self.peek(1) not in ("=", "!"):
            self.i += 1
            self.named_group(out_start)
        elif c == ":":
            self.i += 1
            self.push_group(out_start, flags, "(?:")
        elif c in ("=", "!") or (c == "<" and self.peek(1) in ("=", "!")):
            raise self.syntax("look-around, including look-ahead and look-behind, is not supported")
        elif c == ">":
            raise self.syntax("atomic groups are not supported")
        else:
            self.flag_group(out_start)

    def push_group(self, out_start: int, flags: frozenset[str], opener: str) -> None:
        self.out.append(opener)
        self.frames.append(_Frame(flags, out_start))

    def named_group(self, out_start: int) -> None:
        end = self.p.find(">", self.i)
        if end < 0:
            raise self.syntax("unclosed capture group name")
        name = self.p[self.i : end]
        if not name:
            raise self.syntax("empty capture group name")
        for k, ch in enumerate(name):
            ok = ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z")
            if k and not ok:
                ok = ("0" <= ch <= "9") or ch in ".[]"
            if not ok:
                raise self.syntax(f"invalid capture group character {ch!r}")
        if name in self.group_names:
            raise self.syntax(f"duplicate capture group name {name!r}")
        self.group_names.add(name)
        self.i = end + 1
        self.push_group(out_start, self.frame.flags, "(?:")

    def flag_group(self, out_start: int) -> None:
        start = self.i
        while self.i < len(self.p) and self.p[self.i] not in ":)":
            self.i += 1
        if self.i >= len(self.p):
            raise self.syntax("unclosed group")
        spec = self.p[start : self.i]
        terminator = self.p[self.i]
        self.i += 1
        if not spec:
            raise self.syntax("expected flag but got end of flags")
        flags = set(self.frame.flags)
        negate = False
        seen: set[str] = set()
        for k, ch in enumerate(spec):
            if ch == "-":
                if negate:
                    raise self.syntax("repeated negation in flags")
                if k == len(spec) - 1:
                    raise self.syntax("flag negation without any flags")
                negate = True
                continue
            if ch not in _ALLOWED_FLAGS:
                raise self.syntax(f"unrecognized flag {ch!r}")
            if ch in seen:
                raise self.syntax(f"duplicate flag {ch!r}")
            seen.add(ch)
            if ch == "U":
                continue  # swap-greed: irrelevant when only existence of a match counts
            if ch == "u":
                if negate:
                    raise self.unsupported("disabling Unicode mode (?-u) is not supported")
                continue
            if ch == "R":
                continue  # CRLF mode: irrelevant for LF-only detection text
            if negate:
                flags.discard(ch)
            else:
                flags.add(ch)
        new = frozenset(flags)
        if terminator == ":":
            self.push_group(out_start, new, self.explicit_flags(new))
            return
        f = self.frame
        f.flags = new
        self.out.append(self.explicit_flags(new))
        f.synthetic += 1
        self.reset_atom()
        if len(self.frames) == 1:
            self.flush_run()

    def close_group(self) -> None:
        if len(self.frames) == 1:
            raise self.syntax("unopened group")
        self.i += 1
        f = self.frames.pop()
        self.out.append(")" * f.synthetic)
        self.out.append(")")
        size = f.branches_size + f.cur_size + 1
        f.end_branch()
        parent = self.frame
        parent.fold_atom()
        parent.atom_k, parent.atom_d = f.alt_k, f.alt_d
        parent.atom_start = f.out_start
        parent.atom_size = size
        parent.atom_quantified = False
        parent.atom_is_assertion = False
        parent.cur_size += size

    # -- escapes --------------------------------------------------------------

    def hex_escape(self, kind: str) -> int:
        """Parse after ``\\x``/``\\u``/``\\U``: braced (1+ digits) or fixed width."""
        if self.peek() == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                raise self.syntax("unclosed hexadecimal escape")
            digits = self.p[self.i + 1 : end]
            self.i = end + 1
            if not digits or len(digits) > 8 or any(ch not in _HEX for ch in digits):
                raise self.syntax(f"invalid hexadecimal escape {digits!r}")
        else:
            width = {"x": 2, "u": 4, "U": 8}[kind]
            digits = self.p[self.i : self.i + width]
            if len(digits) != width or any(ch not in _HEX for ch in digits):
                raise self.syntax("invalid hexadecimal escape")
            self.i += width
        code = int(digits, 16)
        if code > _MAX_SCALAR or 0xD800 <= code <= 0xDFFF:
            raise self.syntax(f"hexadecimal escape {digits!r} is not a Unicode scalar value")
        return code

    def property_escape(self, kind: str) -> str:
        if self.peek() == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                raise self.syntax("unclosed Unicode class")
            body = self.p[self.i : end + 1]
            self.i = end + 1
            return f"\\{kind}{body}"
        ch = self.peek()
        if not ch:
            raise self.syntax("incomplete Unicode class escape")
        self.i += 1
        return f"\\{kind}{ch}"

    def escape(self) -> None:
        self.i += 1
        c = self.peek()
        if not c:
            raise self.syntax("incomplete escape sequence")
        self.i += 1
        if c in "xuU":
            code = self.hex_escape(c)
            self.emit_atom(_char_escape(code), literal=chr(code))
        elif c in "pP":
            self.emit_atom(self.property_escape(c))
        elif c in "sWD" and self.line_mode:
            self.emit_atom(_NO_NEWLINE_CLASSES[c])
        elif c in "dDsSwW":
            self.emit_atom("\\" + c)
        elif c in _CONTROL_ESCAPES:
            self.emit_atom("\\" + c, literal=_CONTROL_ESCAPES[c])
        elif c == "A":
            self.start_anchor(multi_line=False)
        elif c == "z":
            self.emit_atom("(?m:$)" if self.line_mode else "\\Z", assertion=True)
        elif c == "B":
            self.emit_atom("\\B", assertion=True)
        elif c == "<":
            self.emit_atom("\\m", assertion=True)
        elif c == ">":
            self.emit_atom("\\M", assertion=True)
        elif c == "b":
            self.word_boundary()
        elif c.isascii() and c.isdigit():
            raise self.syntax("backreferences are not supported")
        elif c.isalpha() or not c.isascii():
            raise self.syntax(f"unrecognized escape sequence \\{c}")
        else:
            self.emit_atom("\\" + c, literal=c)

    def word_boundary(self) -> None:
        if self.peek() == "{":
            end = self.p.find("}", self.i)
            name = self.p[self.i + 1 : end] if end > 0 else ""
            if name and all(ch.isascii() and (ch.isalpha() or ch == "-") for ch in name):
                self.i = end + 1
                if name == "start":
                    self.emit_atom("\\m", assertion=True)
                elif name == "end":
                    self.emit_atom("\\M", assertion=True)
                elif name in ("start-half", "end-half"):
                    raise self.unsupported(f"\\b{{{name}}} is not supported")
                else:
                    raise self.syntax(f"unrecognized special word boundary \\b{{{name}}}")
                return
        self.emit_atom("\\b", assertion=True)

    # -- character classes -----------------------------------------------------

    def char_class(self) -> None:
        self.i += 1
        parts = ["["]
        negated = self.peek() == "^"
        if negated:
            parts.append("^")
            self.i += 1
        first = True
        while True:
            self.skip_extended()
            if self.i >= len(self.p):
                raise self.syntax("unclosed character class")
            c = self.p[self.i]
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            if c == "]":
                parts.append("\\]")
                self.i += 1
            elif c == "[":
                parts.append(self.posix_class())
            elif c in "&-~" and self.peek(1) == c:
                raise self.unsupported(f"character class set operation {c * 2!r} is not supported")
            elif c == "\\":
                parts.append(self.class_escape())
            elif c == "|":
                parts.append("\\|")
                self.i += 1
            else:
                parts.append(c)
                self.i += 1
        if negated and self.line_mode:
            parts.append("\\n")
        parts.append("]")
        self.emit_atom("".join(parts))

    def posix_class(self) -> str:
        if self.peek(1) == ":":
            end = self.p.find(":]", self.i + 2)
            if end >= 0:
                name = self.p[self.i + 2 : end]
                negated = name.startswith("^")
                ranges = _POSIX.get(name.removeprefix("^"))
                if ranges is not None:
                    self.i = end + 2
                    return _ranges_text(_complement(ranges) if negated else ranges)
                if name and all(ch.isascii() and (ch.isalpha() or ch == "^") for ch in name):
                    raise self.syntax(f"invalid ASCII character class {name!r}")
        raise self.unsupported("nested character classes are not supported")

    def class_escape(self) -> str:
        self.i += 1
        c = self.peek()
        if not c:
            raise self.syntax("incomplete escape sequence")
        self.i += 1
        if c in "xuU":
            return _char_escape(self.hex_escape(c))
        if c in "pP":
            return self.property_escape(c)
        if c in "dDsSwW" or c in "aftnrv":
            return "\\" + c
        if c in "AzbB<>":
            raise self.syntax("escape sequence is not valid in a character class")
        if c.isascii() and c.isdigit():
            raise self.syntax("backreferences are not supported")
        if not c.isascii() or c.isalpha():
            raise self.syntax(f"unrecognized escape sequence \\{c}")
        return "\\" + c


class Translation(Struct, frozen=True):
    """A translated pattern; ``newline_lead`` means: search ``"\\n" + text``, not ``text``."""

    text: str
    size: int
    newline_lead: bool
    required: tuple[str, ...] = ()
    """Literal strings every match contains: when one is absent, skip the search."""
    untimed_max_len: int = 0
    """Texts up to this length cannot make the search slow (see :func:`_untimed_max_len`)."""


def _untimed_max_len(size: int, k: int, d: int) -> int:
    """Largest text length n with ``size·k·(n+1)^(d+1) ≤ UNTIMED_STEP_LIMIT``.

    Without nested repetition, a backtracking search tries at most n+1 start
    positions and, from each, at most ``k·(n+1)^d`` ways through the pattern
    (``d`` unbounded repetitions of one-way atoms, ``k`` the product of bounded
    choices and alternatives), each costing at most ``size`` steps.
    """
    budget = UNTIMED_STEP_LIMIT // max(size * k, 1)
    n = int(budget ** (1 / (d + 1))) - 1
    while n >= 0 and (n + 1) ** (d + 1) > budget:
        n -= 1
    return max(n, 0)


def translate_pattern(
    pattern: str, *, line_mode: bool = False, newline_lead: bool = False
) -> Translation:
    """Translate a Rust pattern into ``regex`` VERSION0 syntax.

    ``line_mode`` produces a *relaxed* variant for searching a whole region at
    once on behalf of a ``line_regex``: anchors become line anchors and the
    classes that could match ``\\n`` (``\\s``, ``\\W``, ``\\D``, negated classes, ``.``
    under ``(?s)``) exclude it. Every per-line match is then a relaxed match on the
    joined text (no relaxed match ⇒ no line matches), and a relaxed match that
    stays within one line is a per-line match of that line (anchors and word
    boundaries behave the same next to ``\\n`` as at the ends of a lone line).

    ``newline_lead`` rewrites a leading line-start anchor into a consumed ``\\n``
    to be searched in ``"\\n" + text``: ``regex`` scans ``(?m)^…`` position by
    position (~20 ns/char) but finds a leading literal fast. In exact mode it is
    applied only when it provably keeps the meaning (a leading ``(?m)^``, no
    top-level ``|``, no other start-of-text anchor); otherwise it is not applied.
    """
    t = _Translator(pattern, line_mode=line_mode, newline_lead=newline_lead)
    result = t.run()
    size = t.size()
    if size > MAX_PATTERN_SIZE:
        raise RegexSyntaxError(f"compiled regex exceeds size limit of {MAX_PATTERN_SIZE}")
    if t.used_newline and not line_mode and (t.root_alternation or t.plain_anchor):
        return translate_pattern(pattern, line_mode=line_mode, newline_lead=False)
    t.flush_run()
    root = t.frames[0]
    root.end_branch()
    untimed = 0
    if not t.unbounded_backtracking:
        untimed = _untimed_max_len(max(size, 1), root.alt_k, root.alt_d)
    required: tuple[str, ...] = ()
    if not t.root_alternation:
        # Longest (most selective) first; deterministic order for equal lengths.
        unique = sorted(dict.fromkeys(t.required), key=len, reverse=True)
        required = tuple(unique[:_MAX_REQUIRED])
    return Translation(result, size, t.used_newline, required, untimed)


def translate(pattern: str, *, line_mode: bool = False) -> str:
    """Rewrite a Rust pattern into ``regex`` VERSION0 syntax (see :func:`translate_pattern`)."""
    return translate_pattern(pattern, line_mode=line_mode).text


def compile_translated(translated: str) -> regex.Pattern[str]:
    """Compile output of :func:`translate`; errors become :class:`RegexSyntaxError`."""
    try:
        return regex.compile(translated, flags=REGEX_FLAGS)
    except (regex.error, OverflowError, ValueError) as err:
        raise RegexSyntaxError(str(err)) from None


def compile_rust_regex(pattern: str, *, line_mode: bool = False) -> regex.Pattern[str]:
    """Translate and compile; raises :class:`RegexSyntaxError` or :class:`RegexUnsupportedError`."""
    return compile_translated(translate(pattern, line_mode=line_mode))


__all__ = [
    "MAX_PATTERN_SIZE",
    "REGEX_FLAGS",
    "RegexSyntaxError",
    "RegexUnsupportedError",
    "Translation",
    "compile_rust_regex",
    "compile_translated",
    "translate",
    "translate_pattern",
]
