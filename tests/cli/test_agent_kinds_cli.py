"""``herdr agent kinds`` and offline ``agent explain`` for user-defined kinds (real CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from herdr.detect.agents import ALL_AGENTS
from herdr_testing.foreign_user import NEEDS_ROOT, NOBODY

KIND = 'label = "zork"\nname = "Zork"\nprocess_names = ["zork"]\naliases = ["zork-cli"]\n'
MANIFEST = (
    'id = "zork"\nversion = "2026.12.1"\nmin_engine_version = 3\n\n'
    '[[rules]]\nid = "zork_permission"\nstate = "blocked"\ncontains = ["Allow this action?"]\n'
)


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERDR_", "XDG_"))}
    env["HOME"] = str(tmp_path / "home")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    return env


def herdr(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "herdr", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _agents(env: dict[str, str]) -> Path:
    path = Path(env["XDG_CONFIG_HOME"]) / "herdr" / "agents"
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_builtin_kinds_only(home: dict[str, str]) -> None:
    done = herdr(home, "agent", "kinds", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [k["label"] for k in doc["kinds"]] == [a.label for a in ALL_AGENTS]
    assert {k["source"] for k in doc["kinds"]} == {"built-in"}
    assert doc["errors"] == []


def test_user_kind_listed_with_its_file(home: dict[str, str]) -> None:
    agents = _agents(home)
    (agents / "zork.toml").write_text(KIND, "utf-8")
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    done = herdr(home, "agent", "kinds", "--json")
    assert done.returncode == 0, done.stderr
    user = [k for k in json.loads(done.stdout)["kinds"] if k["source"] == "user"]
    assert len(user) == 1
    assert user[0]["label"] == "zork" and user[0]["name"] == "Zork"
    assert user[0]["path"] == str(agents / "zork.toml")
    assert user[0]["manifest"] == str(agents / "zork.manifest.toml")
    assert user[0]["process_names"] == ["zork", "zork-cli"]
    text = herdr(home, "agent", "kinds")
    assert text.returncode == 0
    assert text.stdout.splitlines()[-1].split() == ["zork", "Zork", str(agents / "zork.toml")]


@pytest.mark.parametrize(
    ("kind", "manifest", "diagnostic"),
    [
        (KIND + "colour = 1\n", MANIFEST, "zork.toml:5: unknown key 'colour'"),
        (KIND, None, "zork.toml:1: missing manifest"),
        (KIND, MANIFEST.replace('"blocked"', '"asleep"'), "zork.manifest.toml:"),
        ('label = "codex"\nprocess_names = ["x"]\n', None, "already names a built-in agent"),
    ],
    ids=["unknown-key", "no-manifest", "bad-manifest", "builtin-label"],
)
def test_bad_kind_file_is_one_diagnostic(
    home: dict[str, str], kind: str, manifest: str | None, diagnostic: str
) -> None:
    agents = _agents(home)
    name = "codex" if "codex" in kind else "zork"
    (agents / f"{name}.toml").write_text(kind, "utf-8")
    if manifest is not None:
        (agents / f"{name}.manifest.toml").write_text(manifest, "utf-8")
    done = herdr(home, "agent", "kinds", "--json")
    assert done.returncode == 1
    doc = json.loads(done.stdout)
    assert len(doc["errors"]) == 1 and diagnostic in doc["errors"][0]
    assert all(k["source"] == "built-in" for k in doc["kinds"])  # nothing else changed
    text = herdr(home, "agent", "kinds")
    assert text.returncode == 1
    assert [line for line in text.stderr.splitlines() if diagnostic in line]


def test_offline_explain_of_a_user_kind(home: dict[str, str], tmp_path: Path) -> None:
    agents = _agents(home)
    (agents / "zork.toml").write_text(KIND, "utf-8")
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    screen = tmp_path / "screen.txt"
    screen.write_text("Allow this action? (y/n)\n", "utf-8")
    done = herdr(home, "agent", "explain", "--file", str(screen), "--agent", "zork-cli", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert (doc["agent"], doc["state"]) == ("zork", "blocked")
    assert doc["manifest_decided_by"] == {
        "source": "user kind",
        "version": "2026.12.1",
        "path": str(agents / "zork.manifest.toml"),
    }
    text = herdr(home, "agent", "explain", "--file", str(screen), "--agent", "zork")
    assert "decided by: user kind 2026.12.1" in text.stdout


@NEEDS_ROOT
def test_refused_files_are_listed_and_never_loaded(home: dict[str, str]) -> None:
    """A kind file of another user and an override anyone may write: `file: reason`
    diagnostics, exit 1, neither used (``os.chown`` to uid 65534)."""
    agents = _agents(home)
    (agents / "zork.toml").write_text(KIND, "utf-8")
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    os.chown(agents / "zork.toml", NOBODY, NOBODY)
    overrides = Path(home["XDG_CONFIG_HOME"]) / "herdr" / "agent-detection"
    overrides.mkdir()
    (overrides / "claude.toml").write_text('id = "claude"\n', "utf-8")
    os.chmod(overrides / "claude.toml", 0o646)
    done = herdr(home, "agent", "kinds", "--json")
    assert done.returncode == 1
    doc = json.loads(done.stdout)
    assert doc["errors"] == [
        f"{agents / 'zork.toml'}: file owned by uid 65534, not by you (uid 0); not loaded",
        f"{overrides / 'claude.toml'}: file is writable by group or others (mode 0646); "
        "fix: chmod go-w",
    ]
    assert all(k["source"] == "built-in" for k in doc["kinds"])
    assert next(k for k in doc["kinds"] if k["label"] == "claude")["manifest"] == "bundled"


def test_a_shared_alias_is_a_diagnostic_naming_both_files(home: dict[str, str]) -> None:
    agents = _agents(home)
    for label in ("alpha", "beta"):
        kind = KIND.replace("zork", label).replace(f'"{label}-cli"', '"shared"')
        (agents / f"{label}.toml").write_text(kind.replace('"Zork"', f'"{label}"'), "utf-8")
        (agents / f"{label}.manifest.toml").write_text(MANIFEST.replace("zork", label), "utf-8")
    done = herdr(home, "agent", "kinds", "--json")
    assert done.returncode == 1
    doc = json.loads(done.stdout)
    assert [k["label"] for k in doc["kinds"] if k["source"] == "user"] == ["alpha", "beta"]
    (error,) = doc["errors"]
    assert error.startswith(f"{agents / 'beta.toml'}: aliases entry 'shared' is also claimed")
    assert str(agents / "alpha.toml") in error
