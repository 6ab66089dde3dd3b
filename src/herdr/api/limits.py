"""Size limits on what a client may hand the server: strings it keeps, sizes it sets.

Each limit is far beyond anything a person types or a terminal has, so only a buggy
or hostile client meets one; without them one request could make the server keep a
megabyte per label, or allocate a 10000x10000 screen. String limits are declared in
the API schema (``maxLength``) and enforced by the params validator, before any
handler runs, as ``invalid_params``; field rules of their own (agent names, metadata
sources, session ids) are stricter and still apply below these.

Pure constants: the CLI, the TUI client and the server share them.
"""

from __future__ import annotations

from typing import Final

MAX_LABEL_CHARS: Final = 256
"""Labels and names: workspace/tab/pane labels, agent names, report sources and agents."""

MAX_TEXT_CHARS: Final = 4096
"""Free text kept or shown: report messages, titles, token and state-label values.

Metadata text is then trimmed to 80 characters (herdr-spec §3.4); this only turns a
megabyte token away instead of reading and trimming it.
"""

MAX_PATH_CHARS: Final = 4096
"""Working directories and session paths (Linux ``PATH_MAX``)."""

MAX_PATTERN_CHARS: Final = 4096
"""An output match (``pane.wait_for_output``, ``pane.output_matched``): literal or regex."""

MAX_SIZE_CELLS: Final = 1000
"""Largest column or row count a client may set for the session area (``client.attach``
and the attach stream's ``resize``); 1000x1000 cells is past any real display."""

MAX_PARAMS_DEPTH: Final = 64
"""Deepest nesting of objects and arrays in a request's params. A layout tree or an agent
view filter is a handful of levels; a client's thousand-level tree would otherwise reach
Python's recursion limit in the validator or a handler."""


def nesting_depth(value: object, *, stop_after: int = MAX_PARAMS_DEPTH) -> int:
    """How deep ``value`` nests (a scalar is 0), walked iteratively; stops early once
    past ``stop_after`` so a hostile document costs no more than the limit."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: list[object] = list(node.values())
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > stop_after:
            return deepest
        stack.extend((child, depth) for child in children)
    return deepest
