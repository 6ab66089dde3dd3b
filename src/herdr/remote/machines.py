"""Saved machines: names for ssh targets, one of them the default.

Pure: ``machines.toml`` text <-> :class:`Machines`. The file lives beside config.toml
(``<config_dir>/machines.toml``) rather than inside it, so saving a machine rewrites a
file herdr owns entirely and never re-serialises the user's hand-edited config.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field

from herdr.remote.target import parse_target

FILE_NAME = "machines.toml"
MAX_NAME = 64
HEADER = "# herdr's saved machines; edited by `herdr machine add|remove|default`.\n"


def is_valid_name(name: str) -> bool:
    """Machine names are ``[A-Za-z0-9._-]{1,64}``, not starting with ``-``."""
    if not 1 <= len(name) <= MAX_NAME or name.startswith("-"):
        return False
    return all(c.isascii() and (c.isalnum() or c in "._-") for c in name)


@dataclass
class Machines:
    """Every saved machine (name -> target) and the default's name."""

    targets: dict[str, str] = field(default_factory=dict)
    default: str | None = None

    def resolve(self, name_or_target: str) -> tuple[str | None, str]:
        """``(name, target)``: a saved name, else the text taken as an ssh target."""
        if name_or_target in self.targets:
            return name_or_target, self.targets[name_or_target]
        return None, name_or_target

    def listing(self) -> list[dict[str, object]]:
        return [
            {"name": name, "target": target, "default": name == self.default}
            for name, target in sorted(self.targets.items())
        ]


def parse(text: str) -> Machines:
    """The machines in ``text``; ``ValueError`` for a file herdr would not have written."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"machines.toml is not valid TOML: {exc}") from None
    table = doc.get("machines", {})
    if not isinstance(table, dict):
        raise ValueError("machines.toml: [machines] must be a table")
    found = Machines()
    for name, entry in table.items():
        target = entry.get("target") if isinstance(entry, dict) else None
        if not is_valid_name(name) or not isinstance(target, str):
            raise ValueError(f"machines.toml: bad entry {name!r}")
        parse_target(target)
        found.targets[name] = target
    default = doc.get("default")
    if default is not None:
        if not isinstance(default, str) or default not in found.targets:
            raise ValueError(f"machines.toml: default {default!r} is not a saved machine")
        found.default = default
    return found


def render(machines: Machines) -> str:
    lines = [HEADER]
    if machines.default is not None:
        lines.append(f"default = {_quote(machines.default)}\n")
    for name, target in sorted(machines.targets.items()):
        lines.append(f"\n[machines.{_quote(name)}]\ntarget = {_quote(target)}\n")
    return "".join(lines)


def _quote(text: str) -> str:
    """A TOML basic string (names and targets hold no control characters)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
