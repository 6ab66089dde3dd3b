"""``herdr`` is on every pane's PATH: a private shim dir holding only ``herdr``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from herdr.server.bin_dir import shim_script, with_bin_dir
from herdr_testing import HerdrEnv, ServerHandle, wait_until

PATHS = [
    pytest.param("/usr/bin:/bin", "/s/bin", "/s/bin:/usr/bin:/bin", id="prepended"),
    pytest.param("/s/bin:/usr/bin", "/s/bin", "/s/bin:/usr/bin", id="already-first"),
    pytest.param("/usr/bin:/s/bin", "/s/bin", "/s/bin:/usr/bin", id="moved-first-once"),
    pytest.param("", "/s/bin", "/s/bin", id="empty-path"),
    pytest.param(None, "/s/bin", "/s/bin:" + os.defpath, id="no-path"),
    pytest.param("/usr/bin", None, "/usr/bin", id="no-shim-dir"),
]


@pytest.mark.parametrize(("path", "bin_dir", "want"), PATHS)
def test_with_bin_dir(path: str | None, bin_dir: str | None, want: str) -> None:
    assert with_bin_dir(path, bin_dir) == want


SHIMS = [
    pytest.param("/v/bin/herdr", "/v/bin/python", 'exec /v/bin/herdr "$@"', id="entry-point"),
    pytest.param(None, "/v/bin/python", 'exec /v/bin/python -m herdr "$@"', id="python-m"),
    pytest.param("/a b/herdr", "/p", "exec '/a b/herdr' \"$@\"", id="quoted"),
]


@pytest.mark.parametrize(("entry", "python", "line"), SHIMS)
def test_shim_script(entry: str | None, python: str, line: str) -> None:
    text = shim_script(entry, python)
    assert text.startswith("#!/bin/sh\n")
    assert line in text.splitlines()


def test_herdr_runs_inside_a_pane_with_a_bare_path(herdr_env: HerdrEnv) -> None:
    # the server's PATH has no herdr on it (a venv or checkout never installed)
    server = ServerHandle(herdr_env, herdr_env.start_server(env={"PATH": "/usr/bin:/bin"}))
    reply = server.request("workspace.create", {"cwd": "/tmp"})
    pane = reply["result"]["root_pane"]["pane_id"]
    out = herdr_env.root / "inside"
    script = f'command -v herdr > {out}.which; herdr pane get "$HERDR_PANE_ID" > {out}.json\r'
    server.request("pane.send_text", {"pane_id": pane, "text": script})
    got = Path(f"{out}.json")
    wait_until(lambda: got.exists() and got.read_text().strip().endswith("}"), 30)
    assert json.loads(got.read_text())["result"]["pane"]["pane_id"] == pane
    which = Path(f"{out}.which").read_text().strip()
    shim_dir = Path(which).parent
    assert Path(which).name == "herdr"
    assert os.listdir(shim_dir) == ["herdr"]  # only herdr: no venv python/pip on PATH
    assert shim_dir.stat().st_mode & 0o077 == 0
