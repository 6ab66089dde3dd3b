"""The CLI's start-up path imports nothing heavy (paths included: plain ``os.path``)."""

from __future__ import annotations

import subprocess
import sys

import pytest


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
        ["notification", "show", "hello", "--sound", "done"],
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
