"""Where a server lives and the directories it may use, checked before anything loads.

Separate from :mod:`herdr.server.app` so ``herdr server`` can refuse an unsafe
directory before the emulator (whose FFI module lives in the cache dir) is imported.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from herdr.config import paths, safe_paths
from herdr.server.info import ServerInfo

__all__ = ["claim_dirs", "server_info"]


def server_info(env: Mapping[str, str], session_flag: str | None) -> ServerInfo:
    """Where a server for this environment lives (raises ValueError on a bad name)."""
    session = paths.active_session(env, session_flag)
    return ServerInfo(
        socket_path=Path(paths.active_socket_path(env, session_flag)),
        session=session,
        data_dir=Path(paths.session_data_dir(env, session)),
        state_dir=Path(paths.session_state_dir(env, session)),
    )


def claim_dirs(env: Mapping[str, str], info: ServerInfo) -> None:
    """Create or check every directory the server uses; raises ``UnsafePathError``.

    Config/data, state and cache trees are private (ours, 0700, tightened if wider);
    a socket directory outside them is the user's choice and may be a sticky ``/tmp``.
    """
    safe_paths.ensure_private_tree(paths.config_dir(env), str(info.data_dir))
    safe_paths.ensure_private_tree(paths.state_dir(env), str(info.state_dir))
    safe_paths.ensure_private_dir(paths.cache_dir(env))
    socket_dir = info.socket_path.parent
    private_roots = (info.data_dir, Path(paths.config_dir(env)), info.state_dir)
    if socket_dir in private_roots:
        return
    if os.path.lexists(socket_dir):
        safe_paths.check_shared_dir(str(socket_dir))
    else:
        safe_paths.ensure_private_dir(str(socket_dir))
