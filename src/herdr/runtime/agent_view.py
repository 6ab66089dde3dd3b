"""Agent views (PURE): one transient filter + sort of the sidebar's agent list.

``agent.view.set`` lets an integration (``source``, e.g. ``example.views``) replace
how the TUI lists agents: which ones (``filter``, a small boolean tree over agent
fields) and in what order (``sort``), under its own ``label``. One view is active per
server; ``agent.view.clear`` removes it (only when ``source`` matches, if given).
The server checks a view with :func:`validate` (the schema already checked the
shapes); the TUI applies it with :func:`apply` to its agent entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

MAX_FILTER_DEPTH = 8
MAX_FILTER_NODES = 64
MAX_FILTER_VALUES = 32
MAX_SORT_FIELDS = 8
MAX_SOURCE_CHARS = 120
MAX_LABEL_CHARS = 32
MAX_TOKEN_CHARS = 32
STATUSES = frozenset({"idle", "working", "blocked", "done", "unknown"})
# Higher: needs the human sooner (the order ``attention`` sorts by).
ATTENTION = {"blocked": 4, "done": 3, "working": 2, "idle": 1, "unknown": 0}
_CONTEXT_FIELD = {"current_workspace_id": "workspace_id", "current_tab_id": "tab_id"}
_STRING_FIELDS = frozenset({"status", "workspace_id", "tab_id", "pane_id", "agent"})

Spec = dict[str, Any]
Entry = Mapping[str, Any]
"""An agent as a view sees it: the builtin fields (``status``, ``workspace_id``,
``tab_id``, ``pane_id``, ``agent``, ``seen``, ``state_change_seq``), the orders
(``workspace_order``, ``tab_order``, ``pane_order``) and ``tokens``."""


class AgentViewError(ValueError):
    """The view breaks a rule; the message says which (``invalid_agent_view``)."""


def _source(value: str) -> str:
    text = value.strip()
    ok = text and len(text) <= MAX_SOURCE_CHARS
    if not ok or not all(ch.isascii() and (ch.isalnum() or ch in ":._-") for ch in text):
        raise AgentViewError(
            f"agent view source must be non-empty, at most {MAX_SOURCE_CHARS} characters, "
            "and contain only ASCII letters, digits, colon, dot, underscore, or hyphen"
        )
    return text


def normalize_source(value: str) -> str:
    """The source trimmed, or :class:`AgentViewError`."""
    return _source(value)


def _label(value: str) -> str:
    text = "".join(ch for ch in value.strip() if ch.isprintable())
    if not text or len(text) > MAX_LABEL_CHARS:
        raise AgentViewError(
            f"agent view label must be non-empty and at most {MAX_LABEL_CHARS} characters"
        )
    return text


def _token(field: Any) -> str | None:
    if not isinstance(field, dict):
        return None
    token = field.get("token")
    text = token if isinstance(token, str) else ""
    ok = 0 < len(text) <= MAX_TOKEN_CHARS
    if not ok or not all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in text):
        raise AgentViewError(f"invalid agent view token `{token}`")
    return text


def _check_value(field: Any, value: Any) -> None:
    token = _token(field)
    if isinstance(value, dict):  # {"context": ...}
        if _CONTEXT_FIELD.get(value.get("context", "")) != field:
            raise AgentViewError("agent view context type does not match the selected field")
        return
    if field == "seen":
        ok = isinstance(value, bool)
    elif field == "state_change_seq":
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, str) and (token is not None or field in _STRING_FIELDS)
    if not ok:
        raise AgentViewError("agent view value type does not match the selected field")
    if field == "status" and value not in STATUSES:
        raise AgentViewError(f"unknown agent status `{value}`")


def _check_filter(node: Any, depth: int, count: list[int]) -> None:
    if depth > MAX_FILTER_DEPTH:
        raise AgentViewError(f"agent view filter may be nested at most {MAX_FILTER_DEPTH} levels")
    count[0] += 1
    if count[0] > MAX_FILTER_NODES:
        raise AgentViewError(f"agent view filter may contain at most {MAX_FILTER_NODES} nodes")
    op = node["op"]
    if op in ("all", "any"):
        if not node["filters"]:
            raise AgentViewError("agent view all/any filters must not be empty")
        for child in node["filters"]:
            _check_filter(child, depth + 1, count)
    elif op == "not":
        _check_filter(node["filter"], depth + 1, count)
    elif op == "eq":
        _check_value(node["field"], node["value"])
    elif op == "in":
        values = node["values"]
        if not values or len(values) > MAX_FILTER_VALUES:
            raise AgentViewError(f"agent view in filters require 1 to {MAX_FILTER_VALUES} values")
        for value in values:
            _check_value(node["field"], value)
    else:  # exists
        _token(node["field"])


def too_deep(node: Any) -> bool:
    """Whether the filter tree ``node`` nests past :data:`MAX_FILTER_DEPTH` levels.

    Iterative, and it stops at the first path too deep: it runs before the schema
    check, whose recursive walk a hostile tree a few hundred levels deep would
    otherwise exhaust. Anything that is not a filter node counts as a leaf.
    """
    stack: list[tuple[Any, int]] = [(node, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict):
            continue
        if depth > MAX_FILTER_DEPTH:
            return True
        child = item.get("filter")
        children = item.get("filters")
        if child is not None:
            stack.append((child, depth + 1))
        if isinstance(children, list):
            stack.extend((c, depth + 1) for c in children)
    return False


def validate(params: Mapping[str, Any]) -> Spec:
    """The view to store: source and label normalised, sort orders filled in.

    ``params`` passed the ``AgentViewSetParams`` schema; this adds herdr's limits.
    """
    label = params.get("label")
    spec: Spec = {
        "source": _source(str(params["source"])),
        "label": _label(label) if isinstance(label, str) else None,
        "filter": params.get("filter"),
        "sort": [],
    }
    if spec["filter"] is not None:
        _check_filter(spec["filter"], 1, [0])
    sort = params.get("sort") or []
    if len(sort) > MAX_SORT_FIELDS:
        raise AgentViewError(f"agent view sort may contain at most {MAX_SORT_FIELDS} fields")
    for item in sort:
        _token(item["field"])
        spec["sort"].append({"field": item["field"], "order": item.get("order") or "asc"})
    return spec


# ----------------------------------------------------------------------------- applying


def _field(entry: Entry, field: Any) -> Any:
    if isinstance(field, dict):
        tokens = entry.get("tokens")
        return tokens.get(field.get("token")) if isinstance(tokens, Mapping) else None
    if field == "attention":
        return ATTENTION.get(str(entry.get("status")), 0)
    return entry.get(field)


def _operand(value: Any, context: Mapping[str, str | None]) -> Any:
    if isinstance(value, dict):
        return context.get(str(value.get("context")))
    return value


def matches(node: Mapping[str, Any], entry: Entry, context: Mapping[str, str | None]) -> bool:
    """Whether ``entry`` passes the filter ``node``; ``context`` holds the client's
    ``current_workspace_id`` and ``current_tab_id``."""
    op = node["op"]
    if op == "all":
        return all(matches(child, entry, context) for child in node["filters"])
    if op == "any":
        return any(matches(child, entry, context) for child in node["filters"])
    if op == "not":
        return not matches(node["filter"], entry, context)
    actual = _field(entry, node["field"])
    if op == "exists":
        return actual is not None
    if actual is None:
        return False
    wanted = [node["value"]] if op == "eq" else node["values"]
    return any(_same(actual, _operand(value, context)) for value in wanted)


def _same(actual: Any, wanted: Any) -> bool:
    """Equal values of the same JSON type (``True`` is not ``1``)."""
    return type(actual) is type(wanted) and bool(actual == wanted)


def _sort_key(sorts: Sequence[Mapping[str, Any]]) -> Callable[[Entry], tuple[Any, ...]]:
    """Per field: present values first (in the field's order), absent ones last."""

    def key(entry: Entry) -> tuple[Any, ...]:
        parts: list[Any] = []
        for item in sorts:
            value = _field(entry, item["field"])
            if value is None:
                parts.append((1, 0))
                continue
            rank: Any = (type(value).__name__, value)
            parts.append((0, _Desc(rank) if item.get("order") == "desc" else rank))
        return tuple(parts)

    return key


class _Desc:
    """Reverses the order of the value it wraps."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: _Desc) -> bool:
        return bool(other.value < self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and bool(self.value == other.value)

    __hash__ = None  # type: ignore[assignment]


def apply(
    spec: Mapping[str, Any], entries: Sequence[Entry], context: Mapping[str, str | None]
) -> list[Entry]:
    """The entries the view keeps, in its order (the given order where it has no sort
    or two entries tie)."""
    node = spec.get("filter")
    kept = [e for e in entries if node is None or matches(node, e, context)]
    sorts = spec.get("sort") or []
    if sorts:
        kept.sort(key=_sort_key(sorts))
    return kept
