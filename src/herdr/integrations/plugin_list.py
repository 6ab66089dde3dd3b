"""OpenCode's ``tui.jsonc`` ``plugin`` list: our one entry in or out, pure.

An entry is ours when it is our spec string, bare or as the first element of a
``[spec, {options}]`` tuple. Comments and everything else in the file are kept.
"""

from __future__ import annotations

from typing import Any

from herdr.integrations import json_edit as je
from herdr.integrations.hook_config import ConfigShapeError

KEY = "plugin"


def _is_ours(item: Any, spec: str) -> bool:
    if isinstance(item, list):
        return bool(item) and item[0] == spec
    return bool(item == spec)


def _list(root: je.Node) -> je.Node | None:
    if not isinstance(root.value, dict):
        raise ConfigShapeError("must be a JSON object")
    member = root.member(KEY)
    if member is None:
        return None
    if not isinstance(member.node.value, list):
        raise ConfigShapeError(f"{KEY} must be an array (the plugin list)")
    return member.node


def check(text: str) -> None:
    _list(je.parse(text, jsonc=True))


def has(text: str, spec: str) -> bool:
    items = _list(je.parse(text, jsonc=True))
    return items is not None and any(_is_ours(v, spec) for v in items.value)


def add(text: str, spec: str) -> str:
    """``text`` with ``spec`` in the plugin list (unchanged if it is there)."""
    root = je.parse(text, jsonc=True)
    items = _list(root)
    if items is None:
        after = je.add_member(text, root, KEY, [spec])
    elif any(_is_ours(v, spec) for v in items.value):
        return text
    else:
        after = je.append_item(text, items, spec)
    _verify(text, after, spec, installed=True)
    return after


def remove(text: str, spec: str) -> str:
    """``text`` without our entries; a list only we were in goes too."""
    after = text
    while True:
        root = je.parse(after, jsonc=True)
        items = _list(root)
        if items is None:
            break
        index = next((i for i, v in enumerate(items.value) if _is_ours(v, spec)), None)
        if index is None:
            break
        if len(items.items) > 1:
            after = je.remove_child(after, items, index)
        else:
            holder = next(i for i, m in enumerate(root.members) if m.key == KEY)
            after = je.remove_child(after, root, holder)
    _verify(text, after, spec, installed=False)
    return after


def _strip(value: Any, spec: str) -> Any:
    if not isinstance(value, dict) or not isinstance(value.get(KEY), list):
        return value
    out = dict(value)
    kept = [v for v in value[KEY] if not _is_ours(v, spec)]
    if kept:
        out[KEY] = kept
    else:
        out.pop(KEY)
    return out


def _verify(before: str, after: str, spec: str, *, installed: bool) -> None:
    old = je.parse(before, jsonc=True).value
    new = je.parse(after, jsonc=True).value
    if _strip(old, spec) != _strip(new, spec):
        raise ConfigShapeError("could not be updated safely (the edit would change other content)")
    if has(after, spec) != installed:
        raise ConfigShapeError("could not be updated safely (our plugin entry)")
