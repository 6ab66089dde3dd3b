"""Remote agent-detection manifest updates (detection-spec §7.5).

``catalog`` parses ``index.toml`` (pure), ``fetch`` downloads with limits (stdlib
``urllib``), ``cache`` commits files and ``status.toml`` atomically, and ``check``
runs one update pass over all of them.
"""

from __future__ import annotations
