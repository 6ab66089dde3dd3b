"""The ten session hooks rendered from one frame: pinned content, valid shell and Python.

A change to the frame or a part changes what users have installed; the pin makes that
a conscious step (bump the target's version so ``integration status`` reports the old
file as outdated, then re-pin), as ``tests/detect/data/manifest_versions.json`` does for
manifests.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from herdr.integrations import session_hook
from herdr.integrations.base import asset
from herdr.integrations.targets import BY_NAME

PINS = json.loads((Path(__file__).parent / "data" / "session_hooks.json").read_text())
NAMES = sorted(PINS)


@pytest.mark.parametrize("target", NAMES)
def test_rendered_hook_is_pinned_to_its_version(target: str) -> None:
    pin = PINS[target]
    text = asset(target, pin["file"])
    digest = hashlib.sha256(text.encode()).hexdigest()
    version = BY_NAME[target].version
    if version == pin["version"]:
        assert digest == pin["sha256"], (
            f"{target}'s hook changed: bump its version in integrations/targets.py and "
            "update tests/integrations/data/session_hooks.json"
        )
    else:
        assert version > pin["version"], "versions only go up"


@pytest.mark.parametrize("target", NAMES)
def test_rendered_hook_markers_come_from_the_table(target: str) -> None:
    t = BY_NAME[target]
    text = asset(target, PINS[target]["file"])
    assert f"# HERDR_INTEGRATION_ID={t.name}\n" in text
    assert f"# HERDR_INTEGRATION_VERSION={t.version}\n" in text
    assert f'SOURCE = "{t.source}"\n' in text and f'AGENT = "{t.agent}"\n' in text
    assert "{{" not in text and "@@MAIN@@" not in text


@pytest.mark.parametrize("target", NAMES)
def test_rendered_hook_is_valid_shell_and_python(target: str, tmp_path: Path) -> None:
    text = asset(target, PINS[target]["file"])
    script = tmp_path / "hook.sh"
    script.write_text(text)
    subprocess.run(["sh", "-n", str(script)], check=True)
    program = text.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    compile(program, f"{target}-hook", "exec")


def test_a_part_without_its_main_marker_is_a_packaging_fault() -> None:
    with pytest.raises(session_hook.HookTemplateError, match="copilot"):
        session_hook.render("{{MAIN}}", "# no marker\n", BY_NAME["copilot"])


def test_shipped_files_win_and_unknown_assets_still_fail() -> None:
    assert asset("claude", "herdr-agent-state.sh").startswith("#!/bin/sh\n")
    with pytest.raises(FileNotFoundError):
        asset("copilot", "no-such-file.sh")
