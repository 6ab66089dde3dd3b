"""``release_notes.dismiss`` / ``product_announcement.dismiss`` on a real server.

A dismissal of the current release notes is kept per user in
``$XDG_STATE_HOME/herdr/dismissals.json`` (0600, atomic) and survives a restart and a
named session; anything not current gets herdr's ``stale_*`` answer and writes
nothing; versions and ids are values in the file, never paths.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from herdr import __version__
from herdr.persist import dismissals
from herdr_testing import HerdrEnv, ServerHandle
from herdr_testing.schema22 import assert_valid_response


def state_dir(h: HerdrEnv) -> Path:
    return Path(h.env["XDG_STATE_HOME"]) / "herdr"


def saved(h: HerdrEnv) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((state_dir(h) / dismissals.FILE_NAME).read_text())
    return doc


def test_release_notes_dismissal_survives_a_restart(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server()
    reply = server.request("release_notes.dismiss", {"version": __version__})
    assert_valid_response(reply)
    assert reply["result"] == {"type": "ok"}
    path = state_dir(herdr_env) / dismissals.FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert saved(herdr_env)["release_notes"] == [__version__]
    # Twice is still once.
    assert server.request("release_notes.dismiss", {"version": __version__})["result"]
    assert saved(herdr_env)["release_notes"] == [__version__]
    assert server.stop() == 0
    again = herdr_env.start_server()
    assert dismissals.load(state_dir(herdr_env)).release_notes == (__version__,)
    assert again.request("release_notes.dismiss", {"version": __version__})["result"]
    assert saved(herdr_env)["release_notes"] == [__version__]


def test_a_named_session_records_in_the_users_file(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server("--session", "work")
    reply = server.request("release_notes.dismiss", {"version": __version__})
    assert reply["result"] == {"type": "ok"}, reply
    assert saved(herdr_env)["release_notes"] == [__version__]
    assert not (state_dir(herdr_env) / "sessions" / "work" / dismissals.FILE_NAME).exists()


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        ("release_notes.dismiss", {"version": "0.0.1"}, "stale_release_notes"),
        ("release_notes.dismiss", {"version": "../../etc/passwd"}, "stale_release_notes"),
        ("release_notes.dismiss", {"version": ""}, "stale_release_notes"),
        (
            "product_announcement.dismiss",
            {"version": __version__, "id": "launch"},
            "stale_announcement",
        ),
        (
            "product_announcement.dismiss",
            {"version": "/tmp/x", "id": "../../x"},
            "stale_announcement",
        ),
        ("release_notes.dismiss", {"version": "v" * 257}, "invalid_params"),
        ("release_notes.dismiss", {"version": 1}, "invalid_request"),
        ("release_notes.dismiss", {}, "invalid_request"),
        ("product_announcement.dismiss", {"version": __version__}, "invalid_request"),
        ("product_announcement.dismiss", {"version": "1", "id": "i" * 300}, "invalid_params"),
    ],
    ids=[
        "old-version",
        "path-like-version",
        "empty-version",
        "no-current-announcement",
        "path-like-announcement",
        "version-too-long",
        "version-not-string",
        "version-missing",
        "id-missing",
        "id-too-long",
    ],
)
def test_what_is_not_current_is_refused_and_writes_nothing(
    shared_server: ServerHandle, method: str, params: dict[str, Any], code: str
) -> None:
    path = state_dir(shared_server.herdr) / dismissals.FILE_NAME
    before = path.read_bytes() if path.exists() else None
    reply = shared_server.request(method, params)
    assert_valid_response(reply)
    assert reply["error"]["code"] == code, reply
    assert (path.read_bytes() if path.exists() else None) == before


def test_an_unreadable_file_is_replaced_not_fatal(herdr_env: HerdrEnv) -> None:
    state_dir(herdr_env).mkdir(parents=True, exist_ok=True, mode=0o700)
    (state_dir(herdr_env) / dismissals.FILE_NAME).write_bytes(b"\xff{not json")
    server = herdr_env.start_server()
    reply = server.request("release_notes.dismiss", {"version": __version__})
    assert reply["result"] == {"type": "ok"}, reply
    assert saved(herdr_env)["release_notes"] == [__version__]


def test_a_failing_write_is_its_own_error_and_the_server_lives(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server()
    (state_dir(herdr_env) / dismissals.FILE_NAME).mkdir()  # nothing can be renamed over it
    reply = server.request("release_notes.dismiss", {"version": __version__})
    assert_valid_response(reply)
    assert reply["error"]["code"] == "release_notes_dismiss_failed", reply
    assert server.request("ping", {})["result"]["type"] == "pong"
