"""End to end in a real tmux: a user-defined agent kind in the sidebar, and the
"Agent detection rules updated" toast (detection-spec §7.6) after a watched file edit
and after ``herdr server update-agent-manifests`` against a loopback HTTP catalog."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from test_tui_tmux import HERDR_BIN, Tui, _prompt_ready  # type: ignore[import-not-found]

from herdr_testing.fake_env import agent_bin
from herdr_testing.zork_kind import FAKE_ZORK, KIND, MANIFEST

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

TITLE = "Agent detection rules updated"
NO_TOASTS = '[ui.toast]\ndelivery = "off"\n'


@pytest.fixture
def tui() -> Iterator[Tui]:
    root = Path(tempfile.mkdtemp(prefix="hk", dir="/tmp"))
    bin_dir = agent_bin(root)
    (bin_dir / "zork").symlink_to(FAKE_ZORK)
    harness = Tui(root, bin_dir)
    config = root / "c" / "herdr"
    (config / "agents").mkdir(parents=True)
    (config / "agents" / "zork.toml").write_text(KIND, "utf-8")
    (config / "agents" / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    (config / "config.toml").write_text('[ui.toast]\ndelivery = "herdr"\n', "utf-8")
    harness.env["HERDR_AGENT_MANIFEST_WATCH_S"] = "0.2"
    script = harness.script.read_text()
    harness.script.write_text(
        script.replace("#!/bin/sh\n", "#!/bin/sh\nexport HERDR_AGENT_MANIFEST_WATCH_S=0.2\n", 1)
    )
    try:
        yield harness
    finally:
        harness.close()
        shutil.rmtree(root, ignore_errors=True)


def _sidebar_state(label: str, pattern: str) -> Callable[[str], bool]:
    return lambda screen: re.search(rf"{label}\s+{pattern}", screen) is not None


def test_user_kind_shows_in_the_sidebar_with_its_states(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("zork")
    tui.keys("Enter")
    tui.wait_for(_sidebar_state("zork", "idle"), message="the user kind is not in the sidebar")
    tui.literal("ask")
    tui.keys("Enter")
    tui.wait_for(_sidebar_state("zork", "blocked"), message="never blocked in the sidebar")
    tui.literal("y")
    tui.keys("Enter")
    tui.wait_for(_sidebar_state("zork", "idle"), message="never idle after the answer")


class Catalog:
    """A loopback HTTP server with one catalog and one claude manifest."""

    def __init__(self, manifest: str) -> None:
        files = {
            "/agent-detection/index.toml": (
                b'schema_version = 1\n[[agents]]\nid = "claude"\npath = "claude.toml"\n'
            ),
            "/agent-detection/claude.toml": manifest.encode(),
        }

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/agent-detection/index.toml"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_rules_updated_toast_after_an_edit_and_after_a_remote_update(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("zork")
    tui.keys("Enter")
    tui.wait_for(_sidebar_state("zork", "idle"), message="the user kind is not in the sidebar")

    # a watched edit: the new rules apply live and the toast names the kind and version
    manifest = tui.root / "c" / "herdr" / "agents" / "zork.manifest.toml"
    manifest.write_text(
        MANIFEST.replace('"2026.12.1"', '"2026.12.2"').replace(
            'contains = ["Allow this action?"]', 'contains = ["zork>"]'
        ),
        "utf-8",
    )
    screen = tui.wait_for(lambda s: TITLE in s, message="no toast after the edit")
    assert "zork 2026.12.2" in screen
    tui.wait_for(_sidebar_state("zork", "blocked"), message="the edit did not apply live")
    tui.wait_for(lambda s: TITLE not in s, message="the toast never went away")

    # a published claude manifest, fetched on demand: the toast lists it
    catalog = Catalog(
        'id = "claude"\nversion = "2099.1"\nmin_engine_version = 1\n'
        '[[rules]]\nid = "m"\nstate = "idle"\ncontains = ["zzz"]\n'
    )
    try:
        done = subprocess.run(
            [HERDR_BIN, "server", "update-agent-manifests"],
            env={**tui.env, "HERDR_AGENT_DETECTION_MANIFEST_CATALOG_URL": catalog.url},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        catalog.close()
    assert done.returncode == 0, done.stderr
    screen = tui.wait_for(lambda s: TITLE in s, message="no toast after the remote update")
    assert "claude 2099.1" in screen
    assert "zork" not in screen.split(TITLE, 1)[1].split("\n", 2)[1]  # only what changed


def test_no_toast_when_toast_delivery_is_not_herdr(tui: Tui) -> None:
    """The toast is drawn only with ``ui.toast.delivery = "herdr"`` (§7.6). The reload
    sends it before the pane is re-evaluated (a re-identified agent has a startup
    grace), so every screen until the new state shows would carry it."""
    (tui.root / "c" / "herdr" / "config.toml").write_text(NO_TOASTS)
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("zork")
    tui.keys("Enter")
    tui.wait_for(_sidebar_state("zork", "idle"), message="the user kind is not in the sidebar")
    manifest = tui.root / "c" / "herdr" / "agents" / "zork.manifest.toml"
    manifest.write_text(
        MANIFEST.replace('"2026.12.1"', '"2026.12.2"').replace(
            'contains = ["Allow this action?"]', 'contains = ["zork>"]'
        ),
        "utf-8",
    )
    seen: list[str] = []

    def blocked(screen: str) -> bool:
        seen.append(screen)
        return _sidebar_state("zork", "blocked")(screen)

    tui.wait_for(blocked, message="the edit did not apply live")
    assert not any(TITLE in screen for screen in seen)
