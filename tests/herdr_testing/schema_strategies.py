"""Hypothesis strategies for request params, derived from the API's own JSON schema.

``valid`` draws documents of the schema's shape with random values, and hostile strings
where a field names something (ids, paths, commands, environment keys); ``invalid``
draws the same with one defect somewhere (a wrong type, a missing required field, an
out-of-range integer, a value outside an enum). Live ids are read through a callable at
draw time, so a fixture can rebuild its objects between runs.

Only the keywords the API schema uses are understood (see :mod:`herdr.api.validate`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from herdr.runtime.agents import START_KINDS

Json = Any
Strategy = st.SearchStrategy[Any]

MAX_DEPTH = 4

HOSTILE_IDS = (
    "w999:p999",
    "w999",
    "w1:t999",
    "w1:p999",
    "w999:t1",
    "t1",
    "p1",
    "1",
    "-rf",
    "--help",
    "../x",
    "",
    " ",
    "w1:p1\n",
    "w1\x00",
    "W1",
    "w01",
    "w1:p01",
    "w1:p1:p1",
    "w-1",
    "w1:p-1",
    "w18446744073709551616:p1",
    "w1:p99999999999999999999999999",
    "\uff571",  # fullwidth w
    "w\u0661",  # Arabic-Indic digit one
    "\u202ew1",
    "w1:p1 ",
    "%s%n",
    "${HOME}",
    "\U0001f600",
    "\ud800",  # a lone surrogate: not valid JSON text once encoded
)
HOSTILE_PATHS = (
    "/",
    "/tmp",
    "../x",
    "../../../../../../etc",
    "-rf",
    "/nonexistent/dir",
    "",
    "~",
    ".",
    "relative/dir",
    "/etc/passwd",
    "/dev/null",
    "/proc/self",
    "a\x00b",
    "\u202e/tmp",
)
# Programs a layout may start: harmless, missing, or option-like, never a real command line.
SAFE_COMMANDS: tuple[list[str], ...] = (
    ["true"],
    ["/bin/cat"],
    ["sleep", "0"],
    ["/nonexistent/program"],
    ["-rf"],
    ["../x"],
    [""],
    [],
    ["true", "-rf", "../x"],
)
ENV_KEYS = ("FOO", "HERDR_X", "PATH", "TERM", "LANG", "", "A=B", "-rf", "X\x00Y", "\u00e9", " ")
KEY_NAMES = (
    "Enter",
    "enter",
    "Tab",
    "Escape",
    "BSpace",
    "Up",
    "F1",
    "F12",
    "F13",
    "C-c",
    "C-d",
    "C-z",
    "M-x",
    "S-Tab",
    "C-M-S-Left",
    "minus",
    "a",
    "Z",
    "",
    "-rf",
    "C-",
    "C-\u00e9",
    "\u00e9",
    "\x00",
)
REGEXES = ("a", "^$", ".*", "(", "[a-", "\\", "(?i)HELLO", "\\d+", "x{1,1000}", "(?P<n>a)")
WEIRD_TEXT = (
    "\x00",
    "\x1b[2J\x1b[H",
    "\x1b]0;title\x07",
    "\x1b]52;c;aGk=\x07",
    "\r\n",
    "\u202e\u2066",
    "\ufeff",
    "e\u0301\u0301\u0301",
    "\U0010ffff",
    "\ud800",
    "\t\x7f",
)
HUGE_SIZES = (257, 4096, 65_536)
# Fields whose valid values follow a rule: mostly valid picks, some just outside the rule.
_SOURCES = ("fuzz", "herdr:fuzz", "hook.claude_1", "a", "x" * 80, "x" * 81, " fuzz ", "a b", "-")
_AGENT_NAMES = ("fuzz", "agent-1", "a", "a" * 32, "a" * 33, "A", "1a", "-rf", "a b")
NAMED: dict[str, tuple[str, ...]] = {
    "source": _SOURCES,
    "applies_to_source": _SOURCES,
    "agent": (*START_KINDS, "unknown-agent", "", "-rf"),
    "display_agent": (*START_KINDS, "Fuzz Agent"),
    "kind": (*START_KINDS, "bash", "-rf"),
    "name": _AGENT_NAMES,
    "agent_session_id": ("0f1e2d3c-aaaa-bbbb-cccc-000000000000", "-rf", "--yolo", "a b", ""),
}

text = st.one_of(
    st.text(max_size=24),
    st.sampled_from(WEIRD_TEXT),
    st.sampled_from(HOSTILE_IDS),
    st.sampled_from(HUGE_SIZES).map(lambda n: "x" * n),
)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**65)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)

_INT_RANGES = {
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
    "uint": (0, 2**64 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
_WRONG_BY_TYPE: dict[str, Strategy] = {
    "string": st.text(max_size=8),
    "integer": st.integers(min_value=-(2**70), max_value=2**70),
    "number": st.floats(allow_nan=False, allow_infinity=False),
    "boolean": st.booleans(),
    "null": st.none(),
    "array": st.lists(json_scalars, max_size=2),
    "object": st.dictionaries(st.text(max_size=6), json_scalars, max_size=2),
}


def _types(node: Mapping[str, Any]) -> tuple[str, ...]:
    spec = node.get("type")
    if spec is None:
        return ()
    return (spec,) if isinstance(spec, str) else tuple(spec)


@dataclass
class IdPools:
    """Live ids by kind; each callable is read when a value is drawn."""

    workspaces: Callable[[], Sequence[str]]
    tabs: Callable[[], Sequence[str]]
    panes: Callable[[], Sequence[str]]
    agents: Callable[[], Sequence[str]] = field(default=lambda: ())

    def any(self) -> Sequence[str]:
        return [*self.workspaces(), *self.tabs(), *self.panes(), *self.agents()]


def _live(source: Callable[[], Sequence[str]]) -> Strategy:
    def pick(index: int) -> str:
        ids = source()
        return ids[index % len(ids)] if ids else "w999"

    return st.integers(min_value=0, max_value=63).map(pick)


class ParamStrategies:
    """Strategies for every definition in the request schema's ``$defs``."""

    def __init__(self, defs: Mapping[str, Json], pools: IdPools) -> None:
        self.defs = defs
        self.pools = pools
        self._cache: dict[tuple[str, int, bool], Strategy] = {}

    # --- entry points -------------------------------------------------------------------

    def params(self, definition: str) -> Strategy:
        """Params for a method: valid, invalid, or not an object at all."""
        node = {"$ref": f"#/{definition}"}
        valid = self.valid(node, "", 0)
        invalid = self.invalid(node, "", 0)
        junk = st.one_of(
            json_values.filter(lambda v: not isinstance(v, dict)),
            st.dictionaries(st.text(max_size=10), json_values, max_size=4),
        )
        kinds = {"valid": valid, "invalid": invalid, "junk": junk}
        weights = ["valid"] * 6 + ["invalid"] * 3 + ["junk"]  # one_of would dedupe repeats
        return st.sampled_from(weights).flatmap(kinds.__getitem__)

    def valid(self, node: Mapping[str, Any], name: str, depth: int) -> Strategy:
        if "$ref" in node:
            return self._ref(str(node["$ref"]), depth, valid=True)
        if "const" in node:
            return st.just(node["const"])
        if "enum" in node:
            return st.sampled_from(list(node["enum"]))
        for key in ("oneOf", "anyOf"):
            if key in node:
                branches = node[key] if depth < MAX_DEPTH else node[key][:1]
                return st.one_of([self.valid(b, name, depth + 1) for b in branches])
        types = _types(node) or ("object",)
        return st.one_of([self._valid_of_type(t, node, name, depth) for t in types])

    def invalid(self, node: Mapping[str, Any], name: str, depth: int) -> Strategy:
        """A value with exactly one defect somewhere inside (when the node can have one)."""
        if "$ref" in node:
            return self._ref(str(node["$ref"]), depth, valid=False)
        if "const" in node or "enum" in node:
            allowed = [node["const"]] if "const" in node else list(node["enum"])
            return st.one_of(st.text(max_size=12), json_scalars).filter(lambda v: v not in allowed)
        for key in ("oneOf", "anyOf"):
            if key in node:
                branches = node[key] if depth < MAX_DEPTH else node[key][:1]
                return st.one_of([self.invalid(b, name, depth + 1) for b in branches])
        types = _types(node)
        options = [_WRONG_BY_TYPE[t] for t in _WRONG_BY_TYPE if types and t not in types]
        if "integer" in types and "number" not in types:
            options.append(st.floats(min_value=0.5, max_value=1e20).filter(lambda f: f % 1 != 0))
            options.append(self._out_of_range(node))
        if depth >= MAX_DEPTH:  # only top-level defects this deep (recursive definitions)
            return st.one_of(options) if options else st.nothing()
        if ("object" in types or not types) and node.get("properties"):
            options.append(self._broken_object(node, depth))
        if "array" in types and isinstance(node.get("items"), Mapping):
            options.append(
                st.lists(self.invalid(node["items"], name, depth + 1), min_size=1, max_size=2)
            )
        return st.one_of(options) if options else st.nothing()

    # --- pieces -------------------------------------------------------------------------

    def _ref(self, ref: str, depth: int, *, valid: bool) -> Strategy:
        name = ref.rsplit("/", 1)[-1]
        key = (name, depth, valid)
        if key not in self._cache:
            target = self.defs[name]
            built = (
                self.valid(target, "", depth + 1) if valid else self.invalid(target, "", depth + 1)
            )
            self._cache[key] = built
        return self._cache[key]

    def _valid_of_type(self, kind: str, node: Mapping[str, Any], name: str, depth: int) -> Strategy:
        if kind == "string":
            return self._string(name)
        if kind == "integer":
            return self._integer(node, name)
        if kind == "number":
            return st.one_of(
                st.floats(allow_nan=False, allow_infinity=False),
                st.sampled_from([0.0, 0.5, 1.0, -0.0, -1.0, 1e308, 5e-324, 0.05, 0.95]),
                st.integers(-3, 3),
            )
        if kind == "boolean":
            return st.booleans()
        if kind == "null":
            return st.none()
        if kind == "array":
            return self._array(node, name, depth)
        return self._object(node, name, depth)

    def _string(self, name: str) -> Strategy:
        pools = self.pools
        if name in ("workspace_id", "before_workspace_id", "workspace_ids"):
            return st.one_of(
                _live(pools.workspaces), st.sampled_from(HOSTILE_IDS), _live(pools.any)
            )
        if name == "tab_id":
            return st.one_of(_live(pools.tabs), st.sampled_from(HOSTILE_IDS), _live(pools.any))
        if name.endswith("pane_id") or name == "pane_id":
            return st.one_of(_live(pools.panes), st.sampled_from(HOSTILE_IDS), _live(pools.any))
        if name == "target":
            return st.one_of(_live(pools.agents), _live(pools.panes), st.sampled_from(HOSTILE_IDS))
        if name in ("cwd", "path", "agent_session_path", "import_exe"):
            return st.one_of(st.sampled_from(HOSTILE_PATHS), st.text(max_size=12))
        if name == "command":
            return st.sampled_from([c for cmd in SAFE_COMMANDS for c in cmd] or ["true"])
        if name == "keys":
            return st.one_of(st.sampled_from(KEY_NAMES), st.text(max_size=6))
        if name == "value":  # an output match: substring or regex
            return st.one_of(st.sampled_from(REGEXES), st.text(max_size=8))
        if name == "env":
            return st.one_of(st.text(max_size=8), st.sampled_from(HOSTILE_PATHS))
        if name in NAMED:
            picks = st.sampled_from(NAMED[name])
            return st.sampled_from([picks, picks, picks, text]).flatmap(lambda s: s)
        return text

    def _integer(self, node: Mapping[str, Any], name: str) -> Strategy:
        low, high = _INT_RANGES.get(str(node.get("format")), (-(2**63), 2**63 - 1))
        low = max(low, int(node.get("minimum", low)))
        high = min(high, int(node.get("maximum", high)))
        edges = [
            v for v in (low, low + 1, high, high - 1, 0, 1, 3001, 86_400_000) if low <= v <= high
        ]
        if name in ("insert_index", "lines", "limit"):
            edges += [v for v in (2, 5, 100, 10_000) if low <= v <= high]
        return st.one_of(st.integers(min_value=low, max_value=high), st.sampled_from(edges))

    def _out_of_range(self, node: Mapping[str, Any]) -> Strategy:
        low, high = _INT_RANGES.get(str(node.get("format")), (-(2**63), 2**63 - 1))
        low = max(low, int(node.get("minimum", low)))
        high = min(high, int(node.get("maximum", high)))
        return st.sampled_from([low - 1, low - 2**64, high + 1, high + 2**64, -1, -(2**63) - 1])

    def _array(self, node: Mapping[str, Any], name: str, depth: int) -> Strategy:
        items = node.get("items")
        if not isinstance(items, Mapping):
            return st.lists(json_scalars, max_size=3)
        if name == "command":
            return st.sampled_from(SAFE_COMMANDS)
        if depth >= MAX_DEPTH:  # keeps recursive definitions (filters, layouts) finite
            return st.just([])
        return st.lists(self.valid(items, name, depth + 1), max_size=4)

    def _object(self, node: Mapping[str, Any], name: str, depth: int) -> Strategy:
        extra = node.get("additionalProperties")
        if isinstance(extra, Mapping):
            return self._map(node, extra, name, depth)
        props: Mapping[str, Any] = node.get("properties", {})
        required = set(node.get("required", ()))
        fixed = {k: self.valid(v, k, depth + 1) for k, v in props.items() if k in required}
        optional = {k: self.valid(v, k, depth + 1) for k, v in props.items() if k not in required}
        base = st.fixed_dictionaries(fixed, optional=optional)
        unknown = st.dictionaries(st.text(min_size=1, max_size=8), json_scalars, max_size=2)
        return st.one_of(base, st.tuples(base, unknown).map(lambda p: {**p[1], **p[0]}))

    def _map(
        self, node: Mapping[str, Any], values: Mapping[str, Any], name: str, depth: int
    ) -> Strategy:
        if name == "env":
            keys: Strategy = st.one_of(st.sampled_from(ENV_KEYS), st.text(max_size=8))
        elif "propertyNames" in node:
            pattern = str(node["propertyNames"]["pattern"])
            good = st.from_regex(pattern, fullmatch=True)
            keys = st.sampled_from([good] * 9 + [st.text(max_size=40)]).flatmap(lambda s: s)
        else:
            keys = st.one_of(st.sampled_from(list(HOSTILE_IDS[:8])), st.text(max_size=12))
        limit = int(node.get("maxProperties", 4))
        size = st.sampled_from([3, limit + 1]) if limit < 4 else st.just(4)
        return size.flatmap(
            lambda n: st.dictionaries(keys, self.valid(values, name, depth + 1), max_size=n)
        )

    def _broken_object(self, node: Mapping[str, Any], depth: int) -> Strategy:
        props: Mapping[str, Any] = node["properties"]
        required = list(node.get("required", ()))
        whole = self._object(node, "", depth)
        options: list[Strategy] = []
        if required:
            options.append(
                st.tuples(whole, st.sampled_from(required)).map(
                    lambda p: {k: v for k, v in p[0].items() if k != p[1]}
                )
            )
        for key, sub in props.items():
            bad = self.invalid(sub, key, depth + 1)
            if bad.is_empty:
                continue
            options.append(st.tuples(whole, bad).map(_setter(key)))
        return st.one_of(options) if options else st.nothing()


def _setter(key: str) -> Callable[[tuple[dict[str, Any], Any]], dict[str, Any]]:
    """``(doc, value)`` → ``doc`` with ``key`` set to ``value``."""
    return lambda pair: {**pair[0], key: pair[1]}
