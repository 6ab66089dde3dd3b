"""The one set of path rules the CLI and the server share (herdr-spec §10)."""

from __future__ import annotations

import pytest

from herdr.config import paths

BASE = {"HOME": "/home/u"}


@pytest.mark.parametrize(
    ("env", "flag", "expected"),
    [
        pytest.param({}, None, "/home/u/.config/herdr/herdr.sock", id="default"),
        pytest.param({"XDG_CONFIG_HOME": "/x"}, None, "/x/herdr/herdr.sock", id="xdg-config-home"),
        pytest.param(
            {}, "work", "/home/u/.config/herdr/sessions/work/herdr.sock", id="session-flag"
        ),
        pytest.param({}, "default", "/home/u/.config/herdr/herdr.sock", id="flag-default"),
        pytest.param(
            {"HERDR_SOCKET_PATH": "/tmp/s.sock"}, None, "/tmp/s.sock", id="explicit-socket"
        ),
        pytest.param(
            {"HERDR_SOCKET_PATH": "/tmp/s.sock"},
            "work",
            "/home/u/.config/herdr/sessions/work/herdr.sock",
            id="flag-beats-explicit-socket",
        ),
        pytest.param(
            {"HERDR_SESSION": "work"},
            None,
            "/home/u/.config/herdr/sessions/work/herdr.sock",
            id="session-env",
        ),
        pytest.param(
            {"HERDR_SESSION": "work", "HERDR_SOCKET_PATH": "/tmp/s.sock"},
            None,
            "/tmp/s.sock",
            id="explicit-socket-beats-session-env",
        ),
        pytest.param(
            {"HERDR_SESSION": "../evil"},
            None,
            "/home/u/.config/herdr/herdr.sock",
            id="invalid-session-env-ignored",
        ),
    ],
)
def test_socket_path_precedence(env: dict[str, str], flag: str | None, expected: str) -> None:
    assert paths.active_socket_path({**BASE, **env}, flag) == expected


@pytest.mark.parametrize("flag", ["..", ".", "a/b", "", "x" * 65, "sp ace"])
def test_invalid_session_flag_raises(flag: str) -> None:
    with pytest.raises(ValueError, match="invalid session name"):
        paths.active_socket_path(BASE, flag)


@pytest.mark.parametrize(
    ("func", "session", "expected"),
    [
        (paths.session_data_dir, None, "/home/u/.config/herdr"),
        (paths.session_data_dir, "default", "/home/u/.config/herdr"),
        (paths.session_data_dir, "w", "/home/u/.config/herdr/sessions/w"),
        (paths.session_state_dir, None, "/home/u/.local/state/herdr"),
        (paths.session_state_dir, "w", "/home/u/.local/state/herdr/sessions/w"),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_session_dirs(func: object, session: str | None, expected: str) -> None:
    assert callable(func)
    assert func(BASE, session) == expected


def test_xdg_dirs_and_files() -> None:
    env = {**BASE, "XDG_STATE_HOME": "/s", "XDG_CACHE_HOME": "/k"}
    assert paths.state_dir(env) == "/s/herdr"
    assert paths.cache_dir(env) == "/k/herdr"
    assert paths.config_file(env) == "/home/u/.config/herdr/config.toml"
    assert paths.config_file({**env, "HERDR_CONFIG_PATH": "/etc/h.toml"}) == "/etc/h.toml"
    assert paths.manifest_remote_dir(env) == "/s/herdr/agent-detection/remote"
    assert paths.manifest_override_dir(env) == "/home/u/.config/herdr/agent-detection"


def test_socket_path_length_limit() -> None:
    assert not paths.socket_path_too_long("/" + "a" * 106)
    assert paths.socket_path_too_long("/" + "a" * 107)
