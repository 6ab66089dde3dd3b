"""The TUI draws its first frame from a small core; features are imported on first use.

A reattach is mostly the client's imports (docs/performance.md, "Start-up and
reattach"), so the modules below must not be loaded before the first frame that shows
a pane: a real client on a real PTY attaches to a real server, and at that frame it
reports which of them are in ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys

from herdr_testing import ServerHandle

# the keys (bindings, key machine, input parser; loaded right after the first frame),
# copy mode, search, mouse selection/copy, the palette and its commands, settings,
# the navigator, prompts' commands, toasts, popups, the config checker, plugins
LATER = (
    "herdr.api.command_catalog",
    "herdr.client.actions",
    "herdr.client.bindings",
    "herdr.client.banner",
    "herdr.client.closing",
    "herdr.client.command_line",
    "herdr.client.commands",
    "herdr.client.copymode",
    "herdr.client.copysearch",
    "herdr.client.input",
    "herdr.client.keynames",
    "herdr.client.machines_probe",
    "herdr.client.modes",
    "herdr.client.more_commands",
    "herdr.client.mouse_copy",
    "herdr.client.mouse_select",
    "herdr.client.navigator",
    "herdr.client.palette",
    "herdr.client.palette_commands",
    "herdr.client.popup_box",
    "herdr.client.prompt",
    "herdr.client.searching",
    "herdr.client.sessions_probe",
    "herdr.client.settings_edit",
    "herdr.client.settings_view",
    "herdr.client.toast",
    "herdr.config.check",
    "herdr.config.health",
    "herdr.config.ui_edit",
    "herdr.plugins.manifest",
    "wcwidth",  # the chrome is measured without its tables (a plain prompt here)
)

# Runs in its own interpreter: App on a PTY; the first draw that has a pane's rows
# prints the LATER modules already imported, then ends the client as a detach would.
SCRIPT = r"""
import json, os, pty, sys, threading
from herdr.client.app import App

later = json.loads(sys.argv[2])
master, slave = pty.openpty()
threading.Thread(target=lambda: [os.read(master, 65536) for _ in iter(int, 1)], daemon=True).start()

class FirstFrame(App):
    seen = None

    def draw(self, *, force=False):
        super().draw(force=force)
        if self.seen is None and self.frame is not None and self.panes:
            self.seen = sorted(name for name in later if name in sys.modules)
            self.finish("detached")

app = FirstFrame(sys.argv[1], fd_in=slave, fd_out=slave, keys_after_first_frame=True)
reason = app.run()
print(json.dumps({"reason": reason, "loaded": app.seen}))
"""


def test_first_frame_imports_none_of_the_features(herdr_server: ServerHandle) -> None:
    created = herdr_server.request("workspace.create", {"cwd": "/", "focus": True})
    assert "result" in created, created
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(herdr_server.socket_path), json.dumps(LATER)],
        env=herdr_server.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"reason": "detached", "loaded": []}, out.stderr
