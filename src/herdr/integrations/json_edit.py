"""Format-preserving JSON/JSONC edits: text in, text out, nothing else touched.

An agent's settings file is the user's: we parse it into a tree that remembers where
every value sits in the text, then splice only our own entries in or out. Comments,
key order, escapes, number spellings, blank lines and CRLF outside our entries survive
byte for byte. Pure functions; no I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

_WS = " \t\r\n"
_NOT_JSON = frozenset({"NaN", "Infinity", "-Infinity"})  # Python's json accepts them


class JsonEditError(ValueError):
    """The text is not (strict, or JSONC) JSON; ``line``/``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line} column {column}: {message}")
        self.line = line
        self.column = column


@dataclass
class Node:
    """A value and its span ``[start, end)`` in the text."""

    start: int
    end: int
    value: Any
    members: list[Member] = field(default_factory=list)  # objects
    items: list[Node] = field(default_factory=list)  # arrays

    def member(self, key: str) -> Member | None:
        return next((m for m in self.members if m.key == key), None)


@dataclass
class Member:
    key: str
    start: int  # the key's opening quote
    node: Node


class _Parser:
    def __init__(self, text: str, *, jsonc: bool) -> None:
        self.text = text
        self.jsonc = jsonc
        self.pos = 0

    def fail(self, message: str, pos: int | None = None) -> JsonEditError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return JsonEditError(message, line, column)

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in _WS:
                self.pos += 1
            elif ch == "/" and text.startswith("//", self.pos):
                if not self.jsonc:
                    raise self.fail("comments are not allowed in JSON")
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif ch == "/" and text.startswith("/*", self.pos):
                if not self.jsonc:
                    raise self.fail("comments are not allowed in JSON")
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("unterminated comment")
                self.pos = end + 2
            else:
                return

    def document(self) -> Node:
        self.skip()
        node = self.value(0)
        self.skip()
        if self.pos != len(self.text):
            raise self.fail("unexpected text after the JSON value")
        return node

    def value(self, depth: int) -> Node:
        if depth > 200:
            raise self.fail("nested too deeply")
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of input")
        ch = self.text[self.pos]
        if ch == "{":
            return self.obj(depth)
        if ch == "[":
            return self.arr(depth)
        if ch == '"':
            return self.string()
        return self.scalar()

    def string(self) -> Node:
        start = self.pos
        i = start + 1
        text = self.text
        while True:
            if i >= len(text):
                raise self.fail("unterminated string", start)
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                break
            if ord(ch) < 0x20:
                raise self.fail("control character in string", i)
            i += 1
        self.pos = i + 1
        try:
            value = json.loads(text[start : self.pos])
        except ValueError as exc:
            raise self.fail(f"invalid string ({exc})", start) from None
        return Node(start, self.pos, value)

    def scalar(self) -> Node:
        start = self.pos
        text = self.text
        i = start
        while i < len(text) and text[i] not in _WS + ",]}/":
            i += 1
        token = text[start:i]
        try:
            value = json.loads(token) if token else None
        except ValueError:
            value = None
            token = ""
        if not token or isinstance(value, (dict, list, str)) or token in _NOT_JSON:
            raise self.fail(f"unexpected {text[start : start + 10]!r}", start)
        self.pos = i
        return Node(start, i, value)

    def obj(self, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        node = Node(start, start, {})
        self.skip()
        while self.peek() != "}":
            if self.peek() != '"':
                raise self.fail("expected a string key")
            key = self.string()
            if key.value in node.value:
                raise self.fail(f"duplicate key {key.value!r}", key.start)
            self.skip()
            if self.peek() != ":":
                raise self.fail("expected ':'")
            self.pos += 1
            self.skip()
            child = self.value(depth + 1)
            node.members.append(Member(key.value, key.start, child))
            node.value[key.value] = child.value
            self.skip()
            if self.peek() == ",":
                self.pos += 1
                self.skip()
                if self.peek() == "}" and not self.jsonc:
                    raise self.fail("trailing comma")
            elif self.peek() != "}":
                raise self.fail("expected ',' or '}'")
        self.pos += 1
        node.end = self.pos
        return node

    def arr(self, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        node = Node(start, start, [])
        self.skip()
        while self.peek() != "]":
            child = self.value(depth + 1)
            node.items.append(child)
            node.value.append(child.value)
            self.skip()
            if self.peek() == ",":
                self.pos += 1
                self.skip()
                if self.peek() == "]" and not self.jsonc:
                    raise self.fail("trailing comma")
            elif self.peek() != "]":
                raise self.fail("expected ',' or ']'")
        self.pos += 1
        node.end = self.pos
        return node

    def peek(self) -> str:
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of input")
        return self.text[self.pos]


def parse(text: str, *, jsonc: bool = False) -> Node:
    """The tree of ``text``; duplicate keys are an error (an edit would be ambiguous)."""
    return _Parser(text, jsonc=jsonc).document()


# --- layout ---------------------------------------------------------------------------


def newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def indent_unit(text: str) -> str:
    """The file's indentation step (the first indented line's), two spaces by default."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _multiline(text: str, node: Node) -> bool:
    return "\n" in text[node.start : node.end]


def render(value: Any, text: str, indent: str, *, compact: bool) -> str:
    """``value`` as JSON laid out like the file: compact on one line, else indented."""
    if compact:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    unit = indent_unit(text)
    lines = json.dumps(value, ensure_ascii=False, indent=unit).split("\n")
    nl = newline_of(text)
    return lines[0] + "".join(nl + indent + ln for ln in lines[1:])


def _insert(
    text: str, container: Node, spans: list[tuple[int, int]], piece: Any, key: str | None
) -> str:
    """Add ``piece`` (a value) as the last child of ``container`` (members or items)."""
    nl = newline_of(text)
    open_indent = _line_indent(text, container.start)
    prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    if spans:
        first_start, _ = spans[0]
        _, last_end = spans[-1]
        multi = "\n" in text[container.start : first_start]
        if multi:
            child_indent = _line_indent(text, first_start)
            body = prefix + render(piece, text, child_indent, compact=False)
            line_end = text.find("\n", last_end)
            line_end = len(text) if line_end < 0 else line_end
            if text[line_end - 1 : line_end] == "\r":
                line_end -= 1
            rest = text[last_end:line_end].strip()
            if rest.startswith("//") or (rest.startswith("/*") and rest.endswith("*/")):
                # a comment closes the last child's line: the comma goes before it, we after
                return (
                    text[:last_end]
                    + ","
                    + text[last_end:line_end]
                    + nl
                    + child_indent
                    + body
                    + text[line_end:]
                )
            addition = "," + nl + child_indent + body
        else:
            sep = text[spans[0][1] : spans[1][0]] if len(spans) > 1 else ", "
            sep = sep if sep.strip() == "," else ", "
            addition = sep + prefix + render(piece, text, "", compact=True)
        return text[:last_end] + addition + text[last_end:]
    compact = "\n" not in text  # a one-line file stays one line; else the container opens up
    if compact:
        body = "{" if key is not None else "["
        close = "}" if key is not None else "]"
        return (
            text[: container.start]
            + body
            + prefix
            + render(piece, text, "", compact=True)
            + close
            + text[container.end :]
        )
    child_indent = open_indent + indent_unit(text)
    body = prefix + render(piece, text, child_indent, compact=False)
    opener, closer = text[container.start], text[container.end - 1]
    return (
        text[: container.start]
        + opener
        + nl
        + child_indent
        + body
        + nl
        + open_indent
        + closer
        + text[container.end :]
    )


def _delete(text: str, container: Node, spans: list[tuple[int, int]], index: int) -> str:
    """Remove child ``index`` of ``container`` with its comma and its own line."""
    start, end = spans[index]
    if len(spans) == 1:
        inner = text[container.start + 1 : container.end - 1]
        has_comment = "//" in inner or "/*" in inner
        if not has_comment:
            return text[: container.start + 1] + text[container.end - 1 :]
        # keep the comments: cut only the child and a trailing comma
        after = end
        while after < container.end - 1 and text[after] in " \t":
            after += 1
        if text[after] == ",":
            end = after + 1
        return text[:start] + text[end:]
    if index < len(spans) - 1:
        comma = text.index(",", end)
        cut_end = comma + 1
        line_start = text.rfind("\n", 0, start) + 1
        j = cut_end
        while j < len(text) and text[j] in " \t":
            j += 1
        if text[line_start:start].strip() == "" and text.startswith("\n", j):
            return text[:line_start] + text[j + 1 :]
        if text.startswith("\r\n", j) and text[line_start:start].strip() == "":
            return text[:line_start] + text[j + 2 :]
        return text[:start] + text[j:]
    prev_end = spans[index - 1][1]
    comma = text.index(",", prev_end)
    if text[comma + 1 : start].strip() == "":
        return text[:comma] + text[end:]
    # a comment sits between the previous child and us: keep it, drop the comma and our line
    line_start = text.rfind("\n", 0, start) + 1
    if line_start > comma and text[line_start:start].strip() == "":
        cut = line_start - 2 if text[line_start - 2 : line_start] == "\r\n" else line_start - 1
        return text[:comma] + text[comma + 1 : cut] + text[end:]
    return text[:start] + text[end:]


def _spans(node: Node) -> list[tuple[int, int]]:
    if isinstance(node.value, dict):
        return [(m.start, m.node.end) for m in node.members]
    return [(item.start, item.end) for item in node.items]


def append_item(text: str, array: Node, value: Any) -> str:
    return _insert(text, array, _spans(array), value, None)


def add_member(text: str, obj: Node, key: str, value: Any) -> str:
    return _insert(text, obj, _spans(obj), value, key)


def remove_child(text: str, container: Node, index: int) -> str:
    return _delete(text, container, _spans(container), index)


def replace_value(text: str, node: Node, value: Any) -> str:
    compact = not _multiline(text, node)
    rendered = render(value, text, _line_indent(text, node.start), compact=compact)
    return text[: node.start] + rendered + text[node.end :]
