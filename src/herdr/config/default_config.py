"""``herdr --default-config``: a commented config.toml holding every default.

Rendered from :mod:`herdr.config.reference` so it cannot disagree with the documented
defaults. Keys that are unset by default appear commented out.
"""

from __future__ import annotations

import textwrap

from herdr.config.reference import KEYS, SECTION_TITLES, ConfigKey

_WIDTH = 88


def _comment(text: str, indent: str = "# ") -> list[str]:
    return textwrap.wrap(text, _WIDTH, initial_indent=indent, subsequent_indent=indent)


def _split(key: str) -> tuple[str, str]:
    table, _, leaf = key.rpartition(".")
    return table, leaf


def _entry(item: ConfigKey) -> list[str]:
    _, leaf = _split(item.key)
    lines = _comment(item.description)
    if item.values:
        lines += _comment("values: " + ", ".join(item.values))
    if item.default is None:
        lines.append(f"# {leaf} =  (unset by default; type: {item.type})")
    else:
        lines.append(f"{leaf} = {item.default}")
    return lines


def render() -> str:
    """The whole file; valid TOML (every table header appears once)."""
    tables: dict[str, list[ConfigKey]] = {}
    for item in KEYS:
        tables.setdefault(_split(item.key)[0], []).append(item)
    out = [
        "# herdr configuration: every key with its default value.",
        "# Save as config.toml in the config dir (or point HERDR_CONFIG_PATH at it) and",
        "# keep only what you change. Missing keys use these defaults.",
    ]
    seen_sections: set[str] = set()
    for table, items in tables.items():
        section = items[0].section
        out.append("")
        if section not in seen_sections:
            seen_sections.add(section)
            title = SECTION_TITLES.get(section, section)
            out += [f"# --- {title} " + "-" * max(3, 60 - len(title)), ""]
        if table:
            out.append(f"[{table}]")
        for index, item in enumerate(items):
            if index:
                out.append("")
            out += _entry(item)
    return "\n".join(out) + "\n"
