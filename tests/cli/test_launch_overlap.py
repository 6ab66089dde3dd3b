"""A cold ``herdr`` imports its client while the server it spawned boots (the two start-ups
overlap instead of adding up); an already running server is not waited for at all."""

from __future__ import annotations

import pytest

from herdr.cli import launch
from herdr.cli.transport import is_live
from herdr_testing import HerdrEnv


def test_meanwhile_runs_once_while_a_spawned_server_boots(
    herdr_env: HerdrEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in herdr_env.env.items():
        monkeypatch.setenv(key, value)
    path = str(herdr_env.socket_path())
    calls: list[str] = []
    try:
        assert launch.ensure_server(path, None, meanwhile=lambda: calls.append("import")) is True
        assert calls == ["import"]
        assert is_live(path)
        # a second start-or-attach finds it running: nothing is spawned, nothing run
        assert launch.ensure_server(path, None, meanwhile=lambda: calls.append("again")) is False
        assert calls == ["import"]
    finally:
        herdr_env.cli("server", "stop")
    assert not is_live(path)
