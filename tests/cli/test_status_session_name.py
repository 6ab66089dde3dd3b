"""``herdr status`` names the default session ``default`` (its wire value stays null)."""

from __future__ import annotations

import json

from herdr_testing import HerdrEnv


def test_status_calls_the_default_session_default(herdr_env: HerdrEnv) -> None:
    text = herdr_env.cli("status", "client").stdout
    assert "session: default" in text
    assert json.loads(herdr_env.cli("status", "client", "--json").stdout)["session"] is None
    named = herdr_env.cli("--session", "work1", "status", "client").stdout
    assert "session: work1" in named
