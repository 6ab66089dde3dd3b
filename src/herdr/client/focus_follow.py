"""Follow focus changes a script made (``herdr tab focus``, ``agent focus``).

Each client keeps its own view (another client's tab switch leaves it alone). The server
numbers the focus changes made by anything other than an attached client and puts the
last one in the state document; a client adopts a number it has not seen yet, except in
the first document after attaching, which only sets the baseline.
"""

from __future__ import annotations

Follow = tuple[int, str | None, str | None]  # (seq, workspace id, tab id)


def follow_step(
    last_seq: int | None, follow: Follow | None
) -> tuple[int, tuple[str | None, str | None] | None]:
    """The new last-seen seq and the (workspace, tab) view to adopt, if any."""
    seq = follow[0] if follow is not None else 0
    if last_seq is None or follow is None or seq == last_seq or follow[2] is None:
        return seq, None
    return seq, (follow[1], follow[2])
