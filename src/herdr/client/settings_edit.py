"""Which settings the settings panel can change and to what (PURE).

The simple ``[ui]`` keys only (those that map one to one onto a `UiSettings` field): a
boolean toggles, an enum cycles, a bounded number steps by one. The new value is
checked against the field's own rule, so the panel never writes a value the client
would throw away.
"""

from __future__ import annotations

import typing
from typing import Any, Literal

import msgspec

from herdr.client.settings import UI_KEYS, UiSettings
from herdr.config.ui_edit import Value

Step = Literal["toggle", "next", "previous", "more", "less"]
FIELDS: dict[str, str] = dict(UI_KEYS)
_HINTS = typing.get_type_hints(UiSettings, include_extras=True)


def editable(key: str) -> bool:
    return key in FIELDS


def stepped(settings: UiSettings, key: str, step: Step) -> Value:
    """The value ``key`` takes after ``step``; `ValueError` says why there is none."""
    field = FIELDS.get(key)
    if field is None:
        raise ValueError(f"{key} is read-only here; edit config.toml")
    current: Any = getattr(settings, field)
    hint = _HINTS[field]
    if isinstance(current, bool):
        return not current
    choices = _choices(hint)
    if choices:
        index = choices.index(current) if current in choices else 0
        delta = -1 if step in ("previous", "less") else 1
        return choices[(index + delta) % len(choices)]
    if isinstance(current, int):
        new = current + (-1 if step in ("previous", "less") else 1)
        try:
            return int(msgspec.convert(new, hint, strict=True))
        except msgspec.ValidationError as exc:
            raise ValueError(f"{key} = {new}: {exc}") from None
    raise ValueError(f"{key} is read-only here; edit config.toml")


def _choices(hint: Any) -> tuple[str, ...]:
    if typing.get_origin(hint) is Literal:
        return tuple(str(c) for c in typing.get_args(hint))
    return ()
