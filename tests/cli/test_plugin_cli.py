"""``herdr plugin …`` through the real CLI: local verbs without a server, socket verbs
against a real one, and ``install`` from a local bare repository standing in for GitHub."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.schema22 import assert_valid_response

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "plugins"
RECORDER = FIXTURES / "recorder"


def _registry(herdr: HerdrEnv) -> dict[str, Any]:
    path = Path(herdr.env["XDG_CONFIG_HOME"]) / "herdr" / "plugins.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _envelope(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    envelope: dict[str, Any] = json.loads(done.stdout)
    assert_valid_response(envelope)
    return envelope


# --- local verbs (no server) ------------------------------------------------------------


def test_link_works_without_a_server(herdr_env: HerdrEnv) -> None:
    done = herdr_env.cli("plugin", "link", str(RECORDER))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("linked test.recorder 1.0.0 (enabled)")
    (entry,) = _registry(herdr_env)["plugins"]
    assert entry["plugin_id"] == "test.recorder" and entry["enabled"] is True
    disabled = herdr_env.cli("plugin", "link", str(FIXTURES / "twin"), "--disabled")
    assert "(disabled)" in disabled.stdout
    assert [e["enabled"] for e in _registry(herdr_env)["plugins"]] == [True, False]


def test_link_refuses_a_bad_manifest_with_file_and_line(
    herdr_env: HerdrEnv, tmp_path: Path
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "herdr-plugin.toml").write_text(
        'id = "x"\nname = "X"\nversion = "1.0.0"\nmin_herdr_version = "0.9.0"\nshell = "sh"\n'
    )
    done = herdr_env.cli("plugin", "link", str(bad))
    assert done.returncode == 1
    assert f"invalid_plugin_manifest: {bad}/herdr-plugin.toml:5: shell: unknown key" in done.stderr
    assert not (Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "plugins.json").exists()


def test_config_dir_prints_and_creates_it(herdr_env: HerdrEnv) -> None:
    done = herdr_env.cli("plugin", "config-dir", "test.recorder")
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path == Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr/plugins/config/test.recorder"
    assert path.is_dir()
    bad = herdr_env.cli("plugin", "config-dir", "../x")
    assert bad.returncode == 1 and "invalid_plugin_id" in bad.stderr


def test_socket_verbs_without_a_server_say_so(herdr_env: HerdrEnv) -> None:
    done = herdr_env.cli("plugin", "list")
    assert done.returncode == 1
    assert json.loads(done.stderr)["error"]["code"] == "server_not_running"


# --- socket verbs ------------------------------------------------------------------------


def test_list_action_invoke_log_enable_disable_unlink(herdr_server: ServerHandle) -> None:
    server = herdr_server
    assert server.cli("plugin", "link", str(RECORDER)).returncode == 0
    text = server.cli("plugin", "list")
    assert text.returncode == 0
    assert text.stdout.splitlines()[0].startswith("test.recorder 1.0.0 enabled")
    listed = _envelope(server.cli("plugin", "list", "--json"))
    assert listed["result"]["plugins"][0]["plugin_id"] == "test.recorder"
    actions = _envelope(server.cli("plugin", "action", "list", "--plugin", "test.recorder"))
    assert "record" in [a["action_id"] for a in actions["result"]["actions"]]
    invoked = _envelope(server.cli("plugin", "action", "invoke", "record"))
    log_id = invoked["result"]["log"]["log_id"]
    assert invoked["result"]["context"]["invocation_source"] == "cli"

    def finished() -> bool:
        logs = _envelope(server.cli("plugin", "log", "list", "--limit", "5"))["result"]["logs"]
        return any(x["log_id"] == log_id and x["status"] == "succeeded" for x in logs)

    wait_until(finished, 30.0)
    disabled = _envelope(server.cli("plugin", "disable", "test.recorder"))
    assert disabled["result"]["type"] == "plugin_disabled"
    refused = server.cli("plugin", "action", "invoke", "test.recorder.record")
    assert refused.returncode == 1
    assert json.loads(refused.stderr)["error"]["code"] == "plugin_disabled"
    assert _envelope(server.cli("plugin", "enable", "test.recorder"))["result"]["plugin"]["enabled"]
    gone = _envelope(server.cli("plugin", "unlink", "test.recorder"))
    assert gone["result"]["removed"] is True
    assert server.cli("plugin", "list").stdout.startswith("no plugins")


def test_pane_open_focus_close(herdr_server: ServerHandle) -> None:
    server = herdr_server
    assert server.cli("plugin", "link", str(RECORDER)).returncode == 0
    assert "result" in server.request("workspace.create", {"cwd": "/tmp"})
    opened = _envelope(
        server.cli(
            "plugin",
            "pane",
            "open",
            "--plugin",
            "test.recorder",
            "--entrypoint",
            "viewer",
            "--placement",
            "tab",
            "--env",
            "EXTRA=1",
        )
    )
    pane_id = opened["result"]["plugin_pane"]["pane"]["pane_id"]
    assert _envelope(server.cli("plugin", "pane", "focus", pane_id))["result"]["type"] == (
        "plugin_pane_focused"
    )
    closed = _envelope(server.cli("plugin", "pane", "close", pane_id))
    assert closed["result"] == {"type": "plugin_pane_closed", "pane_id": pane_id}


@pytest.mark.parametrize(
    "argv",
    [["plugin", "list"], ["plugin", "action", "invoke", "x"], ["plugin", "config-dir", "x"]],
    ids=" ".join,
)
def test_plugin_verbs_stay_off_the_heavy_imports(argv: list[str], tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from herdr.cli.main import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "heavy = {'asyncio', 'orjson', 'regex', 'pyghostty'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr


# --- install from a forge -----------------------------------------------------------------

MANIFEST = """id = "forge.demo"
name = "Demo"
version = "{version}"
min_herdr_version = "0.9.0"
platforms = ["linux", "macos"]

[[build]]
command = ["{python}", "-c", "open('built.txt', 'w').write('{version}')"{fail}]

[[actions]]
id = "hello"
title = "Hello"
command = ["{python}", "-c", "print('hello')"]
"""


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def forge(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """``<forge>/owner/demo.git``: v1 (tag) then v2 on the default branch; the plugin is
    in the ``plug`` subdir. Returns the forge and the commits by version."""
    work = tmp_path / "work"
    (work / "plug").mkdir(parents=True)
    _git(work, "init", "-q")
    commits = {}
    for version in ("1.0.0", "2.0.0"):
        manifest = MANIFEST.format(version=version, python=sys.executable, fail="")
        (work / "plug" / "herdr-plugin.toml").write_text(manifest)
        _git(work, "add", "-A")
        _git(work, "commit", "-qm", version)
        commits[version] = _git(work, "rev-parse", "HEAD")
        if version == "1.0.0":
            _git(work, "tag", "v1")
    forge = tmp_path / "forge"
    (forge / "owner").mkdir(parents=True)
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(work), str(forge / "owner" / "demo.git")], check=True
    )
    return forge, commits


def _install_env(forge: Path) -> dict[str, str]:
    return {"HERDR_PLUGIN_GIT_BASE": f"file://{forge}"}


def test_install_previews_and_refuses_without_yes(
    herdr_env: HerdrEnv, forge: tuple[Path, dict[str, str]]
) -> None:
    base, _commits = forge
    done = herdr_env.cli("plugin", "install", "owner/demo/plug", env=_install_env(base))
    assert done.returncode == 1
    assert "confirmation_required" in done.stderr
    assert "plugin forge.demo 2.0.0" in done.stdout
    assert "build: " in done.stdout and "action hello: " in done.stdout
    managed = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr/plugins/github"
    assert not (managed / "forge.demo").exists()
    assert [p.name for p in managed.iterdir()] == []  # the staging checkout is gone too
    assert not (Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr/plugins.json").exists()


def test_install_yes_builds_and_registers_then_uninstall_removes(
    herdr_env: HerdrEnv, forge: tuple[Path, dict[str, str]]
) -> None:
    base, commits = forge
    done = herdr_env.cli("plugin", "install", "owner/demo/plug", "--yes", env=_install_env(base))
    assert done.returncode == 0, done.stderr
    managed = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr/plugins/github/forge.demo"
    assert (managed / "plug" / "built.txt").read_text() == "2.0.0"
    (entry,) = _registry(herdr_env)["plugins"]
    source = entry["source"]
    assert source["kind"] == "github"
    assert (source["owner"], source["repo"], source["subdir"]) == ("owner", "demo", "plug")
    assert source["resolved_commit"] == commits["2.0.0"]
    assert entry["plugin_root"] == str(managed / "plug")
    # A linked plugin may not replace an installed one (nor the other way round).
    twin = herdr_env.root / "linked"
    twin.mkdir()
    (twin / "herdr-plugin.toml").write_text((managed / "plug" / "herdr-plugin.toml").read_text())
    refused = herdr_env.cli("plugin", "link", str(twin))
    assert refused.returncode == 1 and "plugin_already_installed" in refused.stderr
    gone = herdr_env.cli("plugin", "uninstall", "owner/demo/plug")
    assert gone.returncode == 0, gone.stderr
    assert "uninstalled forge.demo and its checkout" in gone.stdout
    assert not managed.exists()
    assert _registry(herdr_env)["plugins"] == []


def test_install_ref_pins_a_tag(herdr_env: HerdrEnv, forge: tuple[Path, dict[str, str]]) -> None:
    base, commits = forge
    done = herdr_env.cli(
        "plugin", "install", "owner/demo/plug", "--ref", "v1", "--yes", env=_install_env(base)
    )
    assert done.returncode == 0, done.stderr
    (entry,) = _registry(herdr_env)["plugins"]
    assert entry["source"]["resolved_commit"] == commits["1.0.0"]
    assert entry["source"]["requested_ref"] == "v1"
    assert entry["snapshot"]["version"] == "1.0.0"


def test_install_over_a_linked_plugin_is_refused(
    herdr_env: HerdrEnv, forge: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    base, _commits = forge
    linked = tmp_path / "linked"
    linked.mkdir()
    manifest = MANIFEST.format(version="0.0.1", python=sys.executable, fail="")
    (linked / "herdr-plugin.toml").write_text(manifest)
    assert herdr_env.cli("plugin", "link", str(linked)).returncode == 0
    done = herdr_env.cli("plugin", "install", "owner/demo/plug", "--yes", env=_install_env(base))
    assert done.returncode == 1 and "plugin_already_installed" in done.stderr
    (entry,) = _registry(herdr_env)["plugins"]
    assert entry["source"] == {"kind": "local"}
    assert not (linked / "built.txt").exists()


def test_a_failing_build_installs_nothing(herdr_env: HerdrEnv, tmp_path: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    _git(work, "init", "-q")
    fail = ', "||", "true"'  # argv, not a shell: "||" is just an argument to python
    manifest = MANIFEST.format(version="1.0.0", python=sys.executable, fail=fail).replace(
        "open('built.txt', 'w').write('1.0.0')", "import sys; sys.exit(4)"
    )
    (work / "herdr-plugin.toml").write_text(manifest)
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "x")
    forge = tmp_path / "forge"
    (forge / "o").mkdir(parents=True)
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(work), str(forge / "o" / "r.git")], check=True
    )
    done = herdr_env.cli("plugin", "install", "o/r", "--yes", env=_install_env(forge))
    assert done.returncode == 1 and "build step exited 4" in done.stderr
    github = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr/plugins/github"
    assert [p.name for p in github.iterdir()] == []
    assert not (Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr/plugins.json").exists()


@pytest.mark.parametrize(
    "source", ["nope", "a/../b", "/abs/path", "a//b"], ids=["no-slash", "dotdot", "abs", "empty"]
)
def test_install_refuses_bad_sources(herdr_env: HerdrEnv, source: str) -> None:
    done = herdr_env.cli("plugin", "install", source, "--yes")
    assert done.returncode == 1 and "invalid_plugin_source" in done.stderr
