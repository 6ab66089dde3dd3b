"""The CLI's string paths agree with herdr.config.paths, and the CLI stays light."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herdr.cli import envpaths
from herdr.config import paths

names = st.sampled_from(["default", "work", "a.b", "x-1", "..", "bad/name", ""]) | st.text(
    alphabet="abc./_-", max_size=5
)
env_values = st.none() | st.sampled_from(["/tmp/c", "/tmp/c/", "rel/dir", "/x//y"])


@given(
    flag=st.none() | names,
    session_env=st.none() | names,
    socket_env=env_values,
    xdg=env_values,
    home=st.sampled_from(["/home/u", "/h/"]),
)
def test_socket_path_matches_config_paths(
    flag: str | None,
    session_env: str | None,
    socket_env: str | None,
    xdg: str | None,
    home: str,
) -> None:
    env = {"HOME": home}
    for key, value in (
        ("HERDR_SESSION", session_env),
        ("HERDR_SOCKET_PATH", socket_env),
        ("XDG_CONFIG_HOME", xdg),
    ):
        if value is not None:
            env[key] = value
    try:
        expected = paths.active_socket_path(env, flag)
    except ValueError:
        with pytest.raises(ValueError):
            envpaths.socket_path(env, flag)
        return
    assert Path(envpaths.socket_path(env, flag)) == expected
    assert Path(envpaths.config_file(env)) == paths.config_file(env)
    assert envpaths.active_session(env, flag) == paths.active_session(env, flag)


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["status", "server", "--json"],
        ["server", "stop"],
        ["session", "list"],
        ["pane", "list"],
        ["workspace", "create", "--cwd", "."],
        ["pane", "send-keys", "w1:p1", "enter"],
    ],
    ids=" ".join,
)
def test_cli_path_imports_no_heavy_modules(argv: list[str]) -> None:
    code = (
        "import sys\n"
        "from herdr.cli.main import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "heavy = {'asyncio', 'orjson', 'regex', 'pyghostty', 'typing', 'pathlib', 'shutil'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    env = {"HOME": "/nonexistent", "XDG_CONFIG_HOME": "/nonexistent/c", "PATH": "/usr/bin:/bin"}
    out = (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    assert eval(out) == [], out
