"""Session persistence: nothing a restart can take away is lost.

PURE: `snapshot` (``session.json`` schema), `history` encode/decode (pane screen
history), `resume` (native agent resume commands), `mapping` (model ⇄ snapshot,
restore plans), `saver` (when to write). I/O: `files` (atomic writes), `store`
(load/save, backups), `history`'s three file helpers.
"""

from __future__ import annotations
