"""The command palette (``prefix+space``): every command in one filterable list (PURE).

Rows are the catalog's commands (``api.command_catalog``: description and the key that
runs it) followed by the enabled plugins' actions offered in the current context
(``plugin.list``). Typing filters by substring over the whole row (case-insensitive);
every word typed must appear, so ``split ri`` finds "split right".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from msgspec import Struct

from herdr.api.command_catalog import CATALOG

ItemKind = Literal["command", "plugin"]

# The palette itself is not offered inside the palette.
_HIDDEN = frozenset({"command_palette"})


class Item(Struct, frozen=True):
    kind: ItemKind
    target: str  # the TUI command name, or ``<plugin_id>.<action_id>``
    text: str
    key: str = ""  # the binding shown at the right ("" when unbound)

    @property
    def line(self) -> str:
        return f"{self.text}  ({self.key})" if self.key else self.text


def catalog_items(keys_by_description: Mapping[str, str]) -> list[Item]:
    """Every catalog command in help order, with its key from the help rows."""
    return [
        Item(
            "command",
            entry.command,
            entry.description,
            keys_by_description.get(entry.description, ""),
        )
        for entry in CATALOG.values()
        if entry.id not in _HIDDEN
    ]


def offered(action: Mapping[str, Any], contexts: Iterable[str]) -> bool:
    """An action with no ``contexts`` is offered everywhere (manifest rule); otherwise
    one of its contexts must be present now."""
    wanted = action.get("contexts")
    if not isinstance(wanted, list) or not wanted:
        return True
    return bool(set(wanted) & set(contexts))


def _runs_here(platforms: object, platform: str) -> bool:
    return not isinstance(platforms, list) or platform in platforms


def plugin_items(
    plugins: Sequence[Mapping[str, Any]], contexts: Iterable[str], platform: str
) -> list[Item]:
    """The enabled plugins' actions offered in ``contexts`` on ``platform`` (an action's
    own ``platforms`` replace its plugin's), by qualified id: the server would refuse
    the others (``plugin_disabled``, ``platform_unsupported``)."""
    present = tuple(contexts)
    out: list[Item] = []
    for plugin in plugins:
        if not plugin.get("enabled"):
            continue
        plugin_id = str(plugin.get("plugin_id", ""))
        name = str(plugin.get("name") or plugin_id)
        for action in plugin.get("actions") or ():
            if not isinstance(action, Mapping) or not offered(action, present):
                continue
            platforms = action.get("platforms", plugin.get("platforms"))
            if not _runs_here(platforms, platform):
                continue
            action_id = str(action.get("id") or action.get("action_id") or "")
            if not plugin_id or not action_id:
                continue
            title = str(action.get("title") or action_id)
            out.append(Item("plugin", f"{plugin_id}.{action_id}", f"{name}: {title}"))
    out.sort(key=lambda item: item.target)
    return out


def filtered(items: Sequence[Item], query: str) -> list[Item]:
    """Rows holding every word of ``query``, in their order."""
    words = query.casefold().split()
    if not words:
        return list(items)
    return [item for item in items if all(w in item.line.casefold() for w in words)]
