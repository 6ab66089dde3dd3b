"""A small JSON-schema validator for request params, compiled once per definition.

Only the subset the API schema uses (type, const, enum, properties/required,
additionalProperties, items, oneOf/anyOf, $ref, minimum, maxLength and integer
formats). Errors name the offending field (``params.subscriptions[0].type: ...``) so a
caller can fix the request without reading the schema. Unknown fields are ignored (§3.1).

Each problem says what kind it is, as herdr's serde draws the line: a value that does not
*deserialize* (wrong JSON type, unknown enum/tag value, missing field, an integer outside
its format's range) is ``malformed`` and answered ``invalid_request``; a value that parses
but breaks one of our own limits (``maxLength``, a ``minimum`` stricter than the format)
is answered ``invalid_params``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


class Problem(str):
    """An error message that also knows whether the value failed to deserialize."""

    malformed: bool

    def __new__(cls, message: str, *, malformed: bool = True) -> Problem:
        problem = super().__new__(cls, message)
        problem.malformed = malformed
        return problem


def _limit(message: str) -> Problem:
    """A value that parses but breaks one of our limits (``invalid_params``)."""
    return Problem(message, malformed=False)


Check = Callable[[Any, str], "Problem | None"]

_INT_MAX = {
    "uint8": 2**8 - 1,
    "uint16": 2**16 - 1,
    "uint32": 2**32 - 1,
    "uint64": 2**64 - 1,
    "uint": 2**64 - 1,
    "int32": 2**31 - 1,
    "int64": 2**63 - 1,
}
_INT_MIN = {"int32": -(2**31), "int64": -(2**63)}


def json_type(value: Any) -> str:
    """The JSON type name of a decoded value, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_type(value: Any, name: str) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    return True


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:37] + "..."


class Compiler:
    """Compiles schema nodes to checks; ``$ref`` targets are compiled lazily and cached."""

    def __init__(self, defs: Mapping[str, Any]) -> None:
        self._defs = defs
        self._cache: dict[str, Check] = {}

    def ref(self, name: str) -> Check:
        cached = self._cache.get(name)
        if cached is not None:
            return cached
        slot: list[Check] = []

        def deferred(value: Any, path: str) -> Problem | None:
            return slot[0](value, path)

        self._cache[name] = deferred  # breaks recursion (e.g. LayoutNode)
        compiled = self.compile(self._defs[name])
        slot.append(compiled)
        self._cache[name] = compiled
        return compiled

    def compile(self, node: Mapping[str, Any]) -> Check:
        checks: list[Check] = []
        if "$ref" in node:
            checks.append(self.ref(str(node["$ref"]).rsplit("/", 1)[-1]))
        if "type" in node:
            checks.append(_type_check(node["type"]))
        if "const" in node:
            checks.append(_const_check(node["const"]))
        if "enum" in node:
            checks.append(_enum_check(tuple(node["enum"])))
        if "minimum" in node or "format" in node:
            checks.append(_range_check(node.get("minimum"), node.get("format")))
        if "maxLength" in node:
            checks.append(_length_check(int(node["maxLength"])))
        if "properties" in node or "required" in node:
            checks.append(self._object_check(node))
        if isinstance(node.get("additionalProperties"), Mapping):
            checks.append(self._map_check(node["additionalProperties"]))
        if isinstance(node.get("items"), Mapping):
            checks.append(self._items_check(node["items"]))
        if "oneOf" in node:
            checks.append(self._choice_check(node["oneOf"]))
        if "anyOf" in node:
            checks.append(self._choice_check(node["anyOf"]))
        if len(checks) == 1:
            return checks[0]

        def all_of(value: Any, path: str) -> Problem | None:
            for check in checks:
                error = check(value, path)
                if error is not None:
                    return error
            return None

        return all_of

    def _object_check(self, node: Mapping[str, Any]) -> Check:
        props = {k: self.compile(v) for k, v in node.get("properties", {}).items()}
        required = tuple(node.get("required", ()))

        def check(value: Any, path: str) -> Problem | None:
            if not isinstance(value, dict):
                return None  # the type check reports it
            for name in required:
                if name not in value:
                    return Problem(f"{path}.{name}: missing required field")
            for name, sub in props.items():
                if name in value:
                    error = sub(value[name], f"{path}.{name}")
                    if error is not None:
                        return error
            return None

        return check

    def _map_check(self, node: Mapping[str, Any]) -> Check:
        sub = self.compile(node)

        def check(value: Any, path: str) -> Problem | None:
            if not isinstance(value, dict):
                return None
            for key, item in value.items():
                error = sub(item, f"{path}.{key}")
                if error is not None:
                    return error
            return None

        return check

    def _items_check(self, node: Mapping[str, Any]) -> Check:
        sub = self.compile(node)

        def check(value: Any, path: str) -> Problem | None:
            if not isinstance(value, list):
                return None
            for index, item in enumerate(value):
                error = sub(item, f"{path}[{index}]")
                if error is not None:
                    return error
            return None

        return check

    def _choice_check(self, branches: list[Mapping[str, Any]]) -> Check:
        key = _discriminator(branches)
        if key is not None:
            table = {b["properties"][key]["const"]: self.compile(b) for b in branches}
            allowed = ", ".join(f'"{v}"' for v in table)

            def by_tag(value: Any, path: str) -> Problem | None:
                if not isinstance(value, dict):
                    return Problem(f"{path}: expected object, got {json_type(value)}")
                if key not in value:
                    return Problem(f"{path}.{key}: missing required field")
                branch = table.get(value[key])
                if branch is None:
                    got = _short(value[key])
                    return Problem(f"{path}.{key}: expected one of {allowed}, got {got}")
                return branch(value, path)

            return by_tag
        compiled = [self.compile(b) for b in branches]

        def any_branch(value: Any, path: str) -> Problem | None:
            errors = [c(value, path) for c in compiled]
            if any(e is None for e in errors):
                return None
            # Prefer the most specific complaint (the one that looked deepest).
            return max((e for e in errors if e), key=lambda e: e.split(":", 1)[0].count("."))

        return any_branch


def _discriminator(branches: list[Mapping[str, Any]]) -> str | None:
    """The property every branch pins with a distinct ``const`` (e.g. ``type``)."""
    if not branches or not all("properties" in b for b in branches):
        return None
    for key in ("type", "event", "method"):
        consts = [b["properties"].get(key, {}).get("const") for b in branches]
        if all(c is not None for c in consts) and len(set(consts)) == len(consts):
            return key
    return None


def _type_check(spec: str | list[str]) -> Check:
    names = (spec,) if isinstance(spec, str) else tuple(spec)
    label = " or ".join(names)

    def check(value: Any, path: str) -> Problem | None:
        if any(_is_type(value, n) for n in names):
            return None
        return Problem(f"{path}: expected {label}, got {json_type(value)}")

    return check


def _const_check(const: Any) -> Check:
    def check(value: Any, path: str) -> Problem | None:
        if value == const and type(value) is type(const):
            return None
        return Problem(f"{path}: expected {_short(const)}, got {_short(value)}")

    return check


def _enum_check(allowed: tuple[Any, ...]) -> Check:
    label = ", ".join(_short(v) for v in allowed)

    def check(value: Any, path: str) -> Problem | None:
        if any(value == v and type(value) is type(v) for v in allowed):
            return None
        return Problem(f"{path}: expected one of {label}, got {_short(value)}")

    return check


def _range_check(minimum: float | None, fmt: str | None) -> Check:
    # The format's own range is what serde enforces (a u16 overflow does not deserialize);
    # a ``minimum`` stricter than that is a limit of ours, judged after parsing.
    fmt_low = _INT_MIN.get(fmt or "", 0 if fmt in _INT_MAX or minimum == 0 else None)
    high = _INT_MAX.get(fmt or "")
    low = minimum if minimum is not None else fmt_low

    def check(value: Any, path: str) -> Problem | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        if low is not None and value < low:
            message = f"{path}: must be >= {low}, got {value}"
            malformed = fmt_low is not None and value < fmt_low
            return Problem(message, malformed=malformed)
        if high is not None and value > high:
            return Problem(f"{path}: must be <= {high}, got {value}")
        return None

    return check


def _length_check(limit: int) -> Check:
    def check(value: Any, path: str) -> Problem | None:
        if isinstance(value, str) and len(value) > limit:
            return _limit(f"{path}: must be at most {limit} characters, got {len(value)}")
        return None

    return check


class ParamsValidator:
    """Validates ``params`` of each method against its definition."""

    def __init__(self, defs: Mapping[str, Any], method_refs: Mapping[str, str]) -> None:
        self._compiler = Compiler(defs)
        self._method_refs = dict(method_refs)
        self._checks: dict[str, Check] = {}

    def __call__(self, method: str, params: dict[str, Any]) -> Problem | None:
        check = self._checks.get(method)
        if check is None:
            ref = self._method_refs.get(method)
            if ref is None:
                return None
            check = self._compiler.ref(ref)
            self._checks[method] = check
        return check(params, "params")
