"""Shared test support: real servers in private trees, raw requests, bounded waits.

The names tests use most are re-exported here (``from herdr_testing import HerdrEnv,
wait_until``); the fixtures live in :mod:`herdr_testing.pytest_plugin`; the more special
helpers are submodules (``fake_env`` for fake agents, ``foreign_user`` for a second uid,
``schema_strategies`` for hypothesis strategies drawn from the API schema).
"""

from __future__ import annotations

from herdr_testing.servers import (
    HERDR,
    START_TIMEOUT,
    HerdrEnv,
    Server,
    ServerHandle,
    herdr_tree,
    make_env,
    pings,
    raw_exchange,
    request,
    tools_path,
)
from herdr_testing.waits import DEFAULT_TIMEOUT, async_wait_until, wait_until

__all__ = [
    "DEFAULT_TIMEOUT",
    "HERDR",
    "START_TIMEOUT",
    "HerdrEnv",
    "Server",
    "ServerHandle",
    "async_wait_until",
    "herdr_tree",
    "make_env",
    "pings",
    "raw_exchange",
    "request",
    "tools_path",
    "wait_until",
]
