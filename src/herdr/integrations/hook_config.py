"""Our hook entries in an agent's JSON settings (``hooks.<Event>[]`` groups), pure.

Install keeps the first group that already equals our canonical one (so a reinstall is
byte-identical), removes every other entry running one of our commands (older versions,
duplicates), and appends the canonical group where none was kept. Uninstall removes
every entry running our commands, then groups, event lists and the ``hooks`` object
that only held ours. User entries, even in the same group as ours, are kept. The edit
is re-parsed and checked: the user's content must be exactly what it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from herdr.integrations import json_edit as je


class ConfigShapeError(ValueError):
    """The file parses but is not shaped the way the agent defines it."""


@dataclass(frozen=True)
class HookPlan:
    """``wanted``: event → our canonical group; ``owned``: every command string that is
    ours (the current ones and older herdr versions'); ``container``: the key holding
    the event map (``None``: the root itself is the event map)."""

    wanted: Mapping[str, dict[str, Any]]
    owned: frozenset[str]
    container: str | None = "hooks"
    jsonc: bool = False
    direct: bool = False  # event arrays hold the entries themselves, not groups of them
    key: str = "command"  # the entry field holding the command
    typed: bool = True  # entries carry "type": "command"

    def ours(self, entry: Any) -> bool:
        return (
            isinstance(entry, dict)
            and (not self.typed or entry.get("type") == "command")
            and isinstance(entry.get(self.key), str)
            and entry[self.key] in self.owned
        )

    def expected(self, event: str) -> list[Any]:
        wanted = self.wanted[event]
        return [wanted] if self.direct else list(wanted["hooks"])


def _events(root: je.Node, plan: HookPlan) -> je.Node | None:
    if not isinstance(root.value, dict):
        raise ConfigShapeError("must be a JSON object")
    if plan.container is None:
        return root
    member = root.member(plan.container)
    if member is None:
        return None
    if not isinstance(member.node.value, dict):
        raise ConfigShapeError(f"{plan.container} must be a JSON object")
    return member.node


def _check_events(events: je.Node) -> None:
    for member in events.members:
        if not isinstance(member.node.value, list):
            raise ConfigShapeError(f"hook entries for {member.key} must be an array")


def _kept(events: je.Node, plan: HookPlan, installing: bool) -> set[int]:
    """Ids (``start`` offsets) of the groups we leave alone: the first canonical one."""
    kept: set[int] = set()
    if not installing:
        return kept
    for event, canonical in plan.wanted.items():
        member = events.member(event)
        if member is None:
            continue
        for group in member.node.items:
            if group.value == canonical:
                kept.add(group.start)
                break
    return kept


def _drop_item(
    text: str,
    root: je.Node,
    events: je.Node,
    plan: HookPlan,
    installing: bool,
    *,
    at: tuple[int, int],
) -> str:
    """Remove item ``at`` = (event, index), and the list/map it leaves empty."""
    event_index, item_index = at
    array = events.members[event_index].node
    if len(array.items) > 1:
        return je.remove_child(text, array, item_index)
    if len(events.members) > 1 or installing or plan.container is None:
        return je.remove_child(text, events, event_index)
    holder = next(i for i, m in enumerate(root.members) if m.node is events)
    return je.remove_child(text, root, holder)


def _removal(
    text: str, root: je.Node, events: je.Node, plan: HookPlan, installing: bool
) -> str | None:
    kept = _kept(events, plan, installing)
    for event_index, member in enumerate(events.members):
        array = member.node
        for group_index, group in enumerate(array.items):
            if group.start in kept:
                continue
            if plan.direct:
                if plan.ours(group.value):
                    at = (event_index, group_index)
                    return _drop_item(text, root, events, plan, installing, at=at)
                continue
            if not isinstance(group.value, dict):
                continue
            inner = group.member("hooks")
            if inner is None or not isinstance(inner.node.value, list):
                continue
            for entry_index, entry in enumerate(inner.node.items):
                if not plan.ours(entry.value):
                    continue
                if len(inner.node.items) > 1:
                    return je.remove_child(text, inner.node, entry_index)
                at = (event_index, group_index)
                return _drop_item(text, root, events, plan, installing, at=at)
    return None


def _addition(text: str, root: je.Node, events: je.Node | None, plan: HookPlan) -> str | None:
    if events is None:
        assert plan.container is not None
        return je.add_member(text, root, plan.container, {e: [g] for e, g in plan.wanted.items()})
    kept = _kept(events, plan, True)
    for event, canonical in plan.wanted.items():
        member = events.member(event)
        if member is None:
            return je.add_member(text, events, event, [canonical])
        if not any(group.start in kept for group in member.node.items):
            return je.append_item(text, member.node, canonical)
    return None


def _edit(text: str, plan: HookPlan, installing: bool) -> str:
    for _ in range(10_000):  # each step removes or adds one entry; a file has finitely many
        root = je.parse(text, jsonc=plan.jsonc)
        events = _events(root, plan)
        if events is not None:
            _check_events(events)
            step = _removal(text, root, events, plan, installing)
            if step is not None:
                text = step
                continue
        if installing:
            step = _addition(text, root, events, plan)
            if step is not None:
                text = step
                continue
        return text
    raise ConfigShapeError("too many hook entries to edit")


def strip_ours(value: Any, plan: HookPlan) -> Any:
    """``value`` without our entries and the containers that are then empty (the check)."""
    if not isinstance(value, dict):
        return value
    out = dict(value)
    events = out if plan.container is None else out.get(plan.container)
    if not isinstance(events, dict):
        return out
    cleaned: dict[str, Any] = {}
    for event, groups in events.items():
        if not isinstance(groups, list):
            cleaned[event] = groups
            continue
        kept_groups = []
        for group in groups:
            if plan.direct:
                if not plan.ours(group):
                    kept_groups.append(group)
                continue
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                hooks = [h for h in group["hooks"] if not plan.ours(h)]
                if not hooks:
                    continue
                kept_groups.append({**group, "hooks": hooks})
                continue
            kept_groups.append(group)
        if kept_groups:
            cleaned[event] = kept_groups
    if plan.container is None:
        return cleaned
    if cleaned:
        out[plan.container] = cleaned
    else:
        out.pop(plan.container)
    return out


def _ours_by_event(value: Any, plan: HookPlan) -> dict[str, list[Any]]:
    events = value if plan.container is None else value.get(plan.container, {})
    found: dict[str, list[Any]] = {}
    if not isinstance(events, dict):
        return found
    for event, groups in events.items():
        for group in groups if isinstance(groups, list) else ():
            if plan.direct:
                if plan.ours(group):
                    found.setdefault(event, []).append(group)
                continue
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                ours = [h for h in group["hooks"] if plan.ours(h)]
                if ours:
                    found.setdefault(event, []).extend(ours)
    return found


def _verify(before: str, after: str, plan: HookPlan, installing: bool) -> None:
    old = je.parse(before, jsonc=plan.jsonc).value
    new = je.parse(after, jsonc=plan.jsonc).value
    if strip_ours(old, plan) != strip_ours(new, plan):
        raise ConfigShapeError("could not be updated safely (the edit would change other content)")
    expected = {e: plan.expected(e) for e in plan.wanted} if installing else {}
    if _ours_by_event(new, plan) != expected:
        raise ConfigShapeError("could not be updated safely (our entries are not exactly once)")


def install(text: str, plan: HookPlan) -> str:
    """``text`` with exactly our canonical groups (``text`` unchanged if already so)."""
    after = _edit(text, plan, True)
    _verify(text, after, plan, True)
    return after


def uninstall(text: str, plan: HookPlan) -> str:
    after = _edit(text, plan, False)
    _verify(text, after, plan, False)
    return after


def has_ours(text: str, plan: HookPlan) -> bool:
    return bool(_ours_by_event(je.parse(text, jsonc=plan.jsonc).value, plan))
