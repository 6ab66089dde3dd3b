"""The README's "Scripting herdr from Python" example runs, unchanged, against a server.

The code block is extracted from README.md and executed in a fresh interpreter whose
environment points ``Client()`` at a private server, so the example cannot rot.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from herdr_testing import ServerHandle

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Scripting herdr from Python"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    assert SECTION in text, f"README.md has no {SECTION!r} section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, "the section should hold exactly one python code block"
    return str(blocks[0])


def test_readme_example_is_extracted() -> None:
    code = readme_example()
    assert "from herdr.api.client import Client" in code
    compile(code, "README.md", "exec")


def test_readme_sdk_example_runs(herdr_server: ServerHandle) -> None:
    done = subprocess.run(
        [sys.executable, "-c", readme_example()],
        env=herdr_server.env,
        cwd=herdr_server.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0].startswith("server protocol ")
    assert "matched: build-42" in out
    events = [line.split() for line in out if re.match(r"^\d+ pane_", line)]
    matched = out.index("matched: build-42")
    read = out[matched + 1 : out.index(" ".join(events[0]))]
    # ``lines=4`` of recent output (the prompt may or may not be back yet).
    assert 1 <= len(read) <= 4
    assert "build-42" in read
    assert "3" in read
    kinds = [kind for _seq, kind, _pane in events]
    assert kinds.count("pane_created") == 2  # the workspace's root pane and the split
    assert kinds[-1] == "pane_closed"
    seqs = [int(seq) for seq, _kind, _pane in events]
    assert seqs == sorted(seqs)
    # the script cleaned up after itself
    assert herdr_server.request("workspace.list", {})["result"]["workspaces"] == []
