"""``herdr --skill`` and the skill document: every command in it really works.

The document's ``sh`` code blocks are run top to bottom, each through ``/bin/sh`` as an
agent inside a pane would run it (``HERDR_ENV=1``, ``HERDR_PANE_ID`` … set), against a
real server whose panes find the fake ``claude``/``codex`` on ``PATH``. Ids the document
writes as ``<pane>`` are bound from the JSON of the command whose trailing comment names
them (``# <pane> = .result.pane.pane_id``). The only liberties taken: long timeouts are
capped (a safety net for a hung test), the example port is swapped for a free one, a
``| jq`` filter is dropped when jq is not installed, and before the "blocked" section
the agent is given a prompt that ends in a permission dialog, so there is one to answer.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle
from herdr_testing.fake_env import agent_server, new_workspace, pane_record

pytestmark = pytest.mark.slow

SKILL_TEXT = files("herdr").joinpath("skills", "herdr", "SKILL.md").read_text(encoding="utf-8")
BIND = re.compile(r"(<[a-z-]+>) = (\.[A-Za-z_.]+)")
PLACEHOLDER = re.compile(r"<[a-z-]+>")
TIMEOUT_FLAG = re.compile(r"--timeout (\d+)")
MAX_TIMEOUT_MS = 30_000
EXAMPLE_PORT = "8765"
FORBIDDEN = ("server stop", "session stop", "session delete", "workspace close")


@dataclass(frozen=True)
class Command:
    section: str
    line: str  # the command, without a trailing binding comment
    binds: tuple[tuple[str, str], ...]  # (placeholder, JSON path) pairs


def doc_commands(text: str) -> list[Command]:
    """The lines of the ``sh`` code blocks, in order, with their section."""
    commands: list[Command] = []
    section = ""
    fence: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if fence is None:
            if line.startswith("## "):
                section = line[3:]
            elif line.startswith("```"):
                fence = line[3:]
            continue
        if line.startswith("```"):
            fence = None
        elif fence == "sh" and line and not line.startswith("#"):
            command, _, comment = line.partition("  # ")
            binds = tuple(BIND.findall(comment))
            commands.append(Command(section, command.strip() if binds else line, binds))
    return commands


def json_path(doc: Any, path: str) -> str:
    for key in path.strip(".").split("."):
        doc = doc[key]
    return str(doc)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def shim_bin(root: Path) -> Path:
    """``herdr`` (this checkout's CLI) and ``python3`` (this interpreter) for ``sh -c``."""
    bin_dir = root / "shim-bin"
    bin_dir.mkdir()
    herdr = bin_dir / "herdr"
    herdr.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m herdr "$@"\n')
    herdr.chmod(0o755)
    (bin_dir / "python3").symlink_to(sys.executable)
    return bin_dir


class Walk:
    """Runs the document's commands as the agent in pane ``me`` would."""

    def __init__(self, server: ServerHandle, me: str, project: Path) -> None:
        record = pane_record(server, me)
        self.server = server
        self.project = project
        self.bound: dict[str, str] = {}
        self.port = str(free_port())
        self.env = {
            **server.env,
            "HERDR_ENV": "1",
            "HERDR_PANE_ID": me,
            "HERDR_TAB_ID": record["tab_id"],
            "HERDR_WORKSPACE_ID": record["workspace_id"],
            "HERDR_SOCKET_PATH": str(server.socket_path),
            "PWD": str(project),
        }

    def prepare(self, command: Command) -> str:
        line = PLACEHOLDER.sub(lambda m: self.bound[m.group(0)], command.line)
        line = TIMEOUT_FLAG.sub(lambda m: f"--timeout {min(int(m[1]), MAX_TIMEOUT_MS)}", line)
        line = line.replace(EXAMPLE_PORT, self.port)
        if " | jq " in line and shutil.which("jq") is None:
            line = line.split(" | jq ")[0]
        return line

    def sh(self, line: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["/bin/sh", "-c", line],
            env=env or self.env,
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def run(self, command: Command) -> subprocess.CompletedProcess[str]:
        line = self.prepare(command)
        result = self.sh(line)
        assert result.returncode == 0, f"{line!r} -> {result.returncode}: {result.stderr}"
        if command.binds:
            doc = json.loads(result.stdout)
            for name, path in command.binds:
                self.bound[name] = json_path(doc, path)
        return result

    def block(self, agent: str) -> None:
        """Give ``agent`` a prompt the fake answers with a permission dialog."""
        result = self.sh(f"herdr agent prompt {agent} please ask first --wait --timeout 20000")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["result"]["agent"]["agent_status"] == "blocked"


def test_skill_flag_prints_the_document(herdr_env: HerdrEnv) -> None:
    result = herdr_env.cli("--skill")
    assert result.returncode == 0, result.stderr
    assert result.stdout == SKILL_TEXT
    front, _, body = SKILL_TEXT.removeprefix("---\n").partition("\n---\n")
    assert front.splitlines()[0] == "name: herdr"
    assert front.splitlines()[1].startswith("description: ")
    assert body.lstrip().startswith("# ")


def test_skill_flag_stays_light(herdr_env: HerdrEnv) -> None:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "herdr", "--skill"],
        env=herdr_env.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    heavy = {m for m in imported if m.split(".")[0] in {"asyncio", "orjson", "regex", "pyghostty"}}
    assert heavy == set()


def test_document_shape() -> None:
    for rule in ("HERDR_ENV", "Never close a workspace, tab or pane", "Never stop the server"):
        assert rule in SKILL_TEXT
    commands = doc_commands(SKILL_TEXT)
    assert commands[0].line.startswith('[ "$HERDR_ENV" = 1 ]')
    herdr_lines = [c.line for c in commands if "herdr " in c.line]
    assert len(herdr_lines) >= 25
    for line in herdr_lines:
        assert not any(bad in line for bad in FORBIDDEN), line
    bound = {name for c in commands for name, _ in c.binds}
    used = {name for c in commands for name in PLACEHOLDER.findall(c.line)}
    assert used <= bound


def test_every_documented_command_runs(herdr_env: HerdrEnv) -> None:
    bin_dir = shim_bin(herdr_env.root)
    herdr_env.env["PATH"] = f"{bin_dir}{os.pathsep}{herdr_env.env.get('PATH', '')}"
    server = agent_server(herdr_env)
    workspace = new_workspace(server)
    me = f"{workspace}:p1"
    project = herdr_env.root / "project"
    project.mkdir()
    (project / "README").write_text("a project\n")
    walk = Walk(server, me, project)

    commands = doc_commands(SKILL_TEXT)
    # The HERDR_ENV check fails (and prints nothing) outside herdr.
    outside = {k: v for k, v in walk.env.items() if not k.startswith("HERDR_")}
    check = walk.sh(commands[0].line, env=outside)
    assert (check.returncode, check.stdout) == (1, "")

    section = ""
    outputs: dict[str, str] = {}
    for command in commands:
        if command.section != section:
            section = command.section
            if "blocked" in section.lower():
                walk.block(command.line.split()[3])
        outputs[command.line] = walk.run(command).stdout

    assert outputs[commands[0].line].strip() == "inside herdr"
    current = next(out for line, out in outputs.items() if line.startswith("herdr pane current"))
    assert json.loads(current)["result"]["pane"]["pane_id"] == me
    served = next(out for line, out in outputs.items() if "--match" in line)
    assert "Serving HTTP" in json.loads(served)["result"]["matched_line"]
    # Clean-up closed exactly what the walk created: the caller's pane is all that is left.
    panes = server.request("pane.list", {})["result"]["panes"]
    assert [p["pane_id"] for p in panes] == [me]
    assert server.request("agent.list", {})["result"]["agents"] == []
