"""Installing into a temporary HOME: files, env overrides, idempotence, upgrades, uninstall.

Real files in a private directory; the install code runs in-process with an explicit
environment mapping (the CLI tests run the same code through ``python -m herdr``).
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from herdr.integrations import install as integrations
from herdr.integrations import markers
from herdr.integrations.files import IntegrationError
from herdr.integrations.targets import BY_NAME


@dataclass(frozen=True)
class Case:
    target: str
    agent_dir: str  # relative to the temp root; created before install
    override: str | None  # env var pointing at agent_dir (None: the default under HOME)
    status_file: str  # relative to agent_dir
    config: str | None  # the agent config file we edit, relative to agent_dir


CASES = [
    Case("claude", "h/.claude", None, "hooks/herdr-agent-state.sh", "settings.json"),
    Case(
        "claude",
        "elsewhere/claude",
        "CLAUDE_CONFIG_DIR",
        "hooks/herdr-agent-state.sh",
        "settings.json",
    ),
    Case("codex", "h/.codex", None, "herdr-agent-state.sh", "hooks.json"),
    Case("codex", "elsewhere/codex", "CODEX_HOME", "herdr-agent-state.sh", "hooks.json"),
    Case("pi", "h/.pi/agent", None, "extensions/herdr-agent-state.ts", None),
    Case("pi", "elsewhere/pi", "PI_CODING_AGENT_DIR", "extensions/herdr-agent-state.ts", None),
    Case("opencode", "h/.config/opencode", None, "plugins/herdr-agent-state.js", "tui.jsonc"),
    Case("opencode", "x/opencode", "XDG_CONFIG_HOME", "plugins/herdr-agent-state.js", "tui.jsonc"),
    Case("omp", "h/.omp/agent", None, "extensions/herdr-omp-agent-state.ts", None),
    Case("copilot", "h/.copilot", None, "hooks/herdr-agent-state.sh", "settings.json"),
    Case(
        "copilot",
        "elsewhere/copilot",
        "COPILOT_HOME",
        "hooks/herdr-agent-state.sh",
        "settings.json",
    ),
    Case("devin", "h/.config/devin", None, "herdr-agent-state.sh", "config.json"),
    Case("devin", "xdg/devin", "XDG_CONFIG_HOME", "herdr-agent-state.sh", "config.json"),
    Case("droid", "h/.factory", None, "hooks/herdr-agent-state.sh", "settings.json"),
    Case("kimi", "h/.kimi-code", None, "hooks/herdr-agent-state.sh", "config.toml"),
    Case("kimi", "elsewhere/kimi", "KIMI_CODE_HOME", "hooks/herdr-agent-state.sh", "config.toml"),
    Case("kilo", "h/.config/kilo", None, "plugin/herdr-agent-state.js", None),
    Case("kilo", "xdg/kilo", "XDG_CONFIG_HOME", "plugin/herdr-agent-state.js", None),
    Case("hermes", "h/.hermes", None, "plugins/herdr-agent-state/__init__.py", "config.yaml"),
    Case(
        "hermes",
        "elsewhere/hermes",
        "HERMES_HOME",
        "plugins/herdr-agent-state/__init__.py",
        "config.yaml",
    ),
    Case("qodercli", "h/.qoder", None, "hooks/herdr-agent-state.sh", "settings.json"),
    Case(
        "qodercli", "elsewhere/q", "QODER_CONFIG_DIR", "hooks/herdr-agent-state.sh", "settings.json"
    ),
    Case("qwen", "h/.qwen", None, "hooks/herdr-agent-session.sh", "settings.json"),
    Case("qwen", "elsewhere/qwen", "QWEN_HOME", "hooks/herdr-agent-session.sh", "settings.json"),
    Case("cursor", "h/.cursor", None, "herdr-agent-state.sh", "hooks.json"),
    Case("cursor", "elsewhere/c", "CURSOR_CONFIG_DIR", "herdr-agent-state.sh", "hooks.json"),
    Case(
        "antigravity_cli",
        "h/.gemini/config",
        None,
        "hooks/herdr-agent-state.sh",
        "hooks.json",
    ),
    Case(
        "antigravity_cli",
        "elsewhere/agy",
        "ANTIGRAVITY_CLI_CONFIG_DIR",
        "hooks/herdr-agent-state.sh",
        "hooks.json",
    ),
    Case("grok", "h/.grok", None, "hooks/herdr-agent-state.sh", "hooks/herdr.json"),
    Case("grok", "elsewhere/grok", "GROK_HOME", "hooks/herdr-agent-state.sh", "hooks/herdr.json"),
    Case(
        "grok", "elsewhere/g2", "GROK_CONFIG_DIR", "hooks/herdr-agent-state.sh", "hooks/herdr.json"
    ),
]
MASTRACODE = Case("mastracode", "h/.mastracode", None, "hooks/herdr-agent-state.sh", "hooks.json")
IDS = [f"{c.target}-{c.override or 'default'}" for c in CASES]


def _env(root: Path, case: Case) -> dict[str, str]:
    env = {"HOME": str(root / "h"), "PATH": "/nonexistent"}
    if case.override == "XDG_CONFIG_HOME":
        env[case.override] = str(root / case.agent_dir).removesuffix("/" + case.target)
    elif case.override:
        env[case.override] = str(root / case.agent_dir)
    return env


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "h").mkdir()
    return tmp_path


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_install_writes_current_files_and_is_idempotent(root: Path, case: Case) -> None:
    agent_dir = root / case.agent_dir
    agent_dir.mkdir(parents=True)
    env = _env(root, case)
    messages = integrations.install(case.target, env)
    status_file = agent_dir / case.status_file
    assert any(str(status_file) in m or str(status_file.parent) in m for m in messages)
    text = status_file.read_text()
    assert markers.version_of(text) == BY_NAME[case.target].version
    assert f"HERDR_INTEGRATION_ID={case.target}" in text
    st = integrations.status(BY_NAME[case.target], env)
    assert st is not None and st.state == markers.CURRENT and st.path == str(status_file)
    first = _tree(root)
    assert integrations.install(case.target, env) == messages
    assert _tree(root) == first  # byte-identical reinstall


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_uninstall_restores_the_tree(root: Path, case: Case) -> None:
    agent_dir = root / case.agent_dir
    agent_dir.mkdir(parents=True)
    env = _env(root, case)
    before = _tree(root)
    integrations.install(case.target, env)
    integrations.uninstall(case.target, env)
    assert _tree(root) == before
    st = integrations.status(BY_NAME[case.target], env)
    assert st is not None and st.state == markers.NOT_INSTALLED
    again = integrations.uninstall(case.target, env)  # nothing left: says so, changes nothing
    assert any(m.startswith("no ") for m in again)
    assert _tree(root) == before


def test_mastracode_creates_its_dir_and_owns_only_its_entries(root: Path) -> None:
    env = _env(root, MASTRACODE)
    agent = root / MASTRACODE.agent_dir
    integrations.install("mastracode", env)
    hooks = json.loads((agent / "hooks.json").read_text())
    script = agent / MASTRACODE.status_file
    assert hooks["SessionStart"] == [
        {
            "type": "command",
            "command": _command(script, "session"),
            "timeout": 10000,
            "description": "Report MastraCode agent state to Herdr",
        }
    ]
    assert hooks["PermissionRequest"][0]["command"] == _command(script, "blocked")
    user = {"type": "command", "command": "echo mine"}
    hooks["PostToolUse"] = [user]
    hooks["SessionStart"].insert(0, user)
    (agent / "hooks.json").write_text(json.dumps(hooks, indent=2) + "\n")
    integrations.uninstall("mastracode", env)
    assert json.loads((agent / "hooks.json").read_text()) == {
        "SessionStart": [user],
        "PostToolUse": [user],
    }
    (agent / "hooks.json").write_text('{"SessionStart": {}}')
    with pytest.raises(IntegrationError, match="hook entries for SessionStart must be an array"):
        integrations.install("mastracode", env)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_missing_agent_dir_is_an_error_that_writes_nothing(root: Path, case: Case) -> None:
    env = _env(root, case)
    before = _tree(root)
    with pytest.raises(IntegrationError, match=r"not found at .* install .* first"):
        integrations.install(case.target, env)
    assert _tree(root) == before
    assert not (root / case.agent_dir).exists()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_older_marker_is_outdated_and_upgraded_in_place(root: Path, case: Case) -> None:
    agent_dir = root / case.agent_dir
    agent_dir.mkdir(parents=True)
    env = _env(root, case)
    integrations.install(case.target, env)
    status_file = agent_dir / case.status_file
    current = status_file.read_text()
    version = BY_NAME[case.target].version
    status_file.write_text(current.replace(f"VERSION={version}", f"VERSION={version - 1}"))
    st = integrations.status(BY_NAME[case.target], env)
    assert st is not None and st.state == markers.OUTDATED
    assert st.describe() == f"outdated (v{version - 1} < v{version})"
    status_file.write_text("#!/bin/sh\n# an old hook without a marker\n")
    st = integrations.status(BY_NAME[case.target], env)
    assert st is not None and st.describe() == f"outdated (legacy < v{version})"
    integrations.install(case.target, env)
    assert status_file.read_text() == current
    assert integrations.status(BY_NAME[case.target], env).state == markers.CURRENT  # type: ignore[union-attr]


def test_hook_scripts_are_executable_and_ours(root: Path) -> None:
    case = CASES[0]
    (root / case.agent_dir).mkdir(parents=True)
    integrations.install("claude", _env(root, case))
    script = root / case.agent_dir / case.status_file
    assert stat.S_IMODE(script.stat().st_mode) == 0o755


# --- the agents' config files -----------------------------------------------------------

CLAUDE_USER = """{
  // not allowed in strict JSON: replaced below
}"""

CLAUDE_SETTINGS = (
    "{\r\n"
    '  "model": "opus",\r\n'
    '  "permissions": {"allow": ["Bash(ls:*)"]},\r\n'
    '  "hooks": {\r\n'
    '    "PostToolUse": [\r\n'
    '      {"matcher": "Edit", "hooks": [{"type": "command", "command": "echo keep-post"}]}\r\n'
    "    ]\r\n"
    "  },\r\n"
    '  "n": 1e+02, "s": "\\u0061"\r\n'
    "}\r\n"
)


def _claude(root: Path) -> tuple[dict[str, str], Path, Path]:
    agent = root / "h/.claude"
    agent.mkdir(parents=True)
    return {"HOME": str(root / "h")}, agent / "settings.json", agent / "hooks/herdr-agent-state.sh"


def _command(script: Path, action: str) -> str:
    return f"bash '{script}' {action}"


def test_claude_keeps_user_content_byte_for_byte(root: Path) -> None:
    env, settings, script = _claude(root)
    settings.write_text(CLAUDE_SETTINGS, newline="")
    os.chmod(settings, 0o600)
    integrations.install("claude", env)
    text = settings.read_bytes().decode()
    prefix = CLAUDE_SETTINGS[: CLAUDE_SETTINGS.index("    ]\r\n") + 5]
    assert text.startswith(prefix)  # untouched up to where our entry goes
    assert '"n": 1e+02, "s": "\\u0061"' in text and "\n" not in text.replace("\r\n", "")
    doc = json.loads(text)
    assert doc["model"] == "opus" and doc["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert doc["hooks"]["PostToolUse"][0]["hooks"] == [
        {"type": "command", "command": "echo keep-post"}
    ]
    assert doc["hooks"]["SessionStart"] == [
        {
            "matcher": "*",
            "hooks": [{"type": "command", "command": _command(script, "session"), "timeout": 10}],
        }
    ]
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600  # the user's mode is kept
    integrations.uninstall("claude", env)
    assert settings.read_bytes().decode() == CLAUDE_SETTINGS


def test_claude_removes_older_herdr_entries_but_not_the_users(root: Path) -> None:
    env, settings, script = _claude(root)
    legacy = {
        "hooks": {
            "PostToolUse": [
                {
                    "hooks": [
                        {"type": "command", "command": "echo keep-post"},
                        {"type": "command", "command": _command(script, "working")},
                    ]
                }
            ],
            "Stop": [{"hooks": [{"type": "command", "command": _command(script, "idle")}]}],
            "SessionStart": [
                {"hooks": [{"type": "command", "command": _command(script, "idle")}]},
                {"hooks": [{"type": "command", "command": f"sh '{script}' session"}]},
            ],
        }
    }
    settings.write_text(json.dumps(legacy, indent=2) + "\n")
    integrations.install("claude", env)
    hooks = json.loads(settings.read_text())["hooks"]
    assert hooks["PostToolUse"] == [{"hooks": [{"type": "command", "command": "echo keep-post"}]}]
    assert "Stop" not in hooks
    foreign = {"hooks": [{"type": "command", "command": f"sh '{script}' session"}]}
    assert hooks["SessionStart"][0] == foreign  # another quoting is the user's, kept
    assert hooks["SessionStart"][1]["hooks"][0]["command"] == _command(script, "session")
    assert len(hooks["SessionStart"]) == 2


@pytest.mark.parametrize(
    ("content", "where"),
    [
        pytest.param('{\n  "a": 1,\n}\n', ":3", id="trailing-comma"),
        pytest.param('{\n  // hi\n  "a": 1\n}\n', ":2", id="comment"),
        pytest.param('{"a": 1, "a": 2}', ":1", id="duplicate-key"),
        pytest.param("[]", "", id="not-an-object"),
        pytest.param('{"hooks": []}', "", id="hooks-not-an-object"),
        pytest.param('{"hooks": {"SessionStart": {}}}', "", id="event-not-an-array"),
        pytest.param("\xff", "", id="not-utf8"),
    ],
)
def test_invalid_user_settings_are_left_untouched(root: Path, content: str, where: str) -> None:
    env, settings, script = _claude(root)
    data = content.encode("latin-1") if content == "\xff" else content.encode()
    settings.write_bytes(data)
    with pytest.raises(IntegrationError) as caught:
        integrations.install("claude", env)
    assert str(settings) in str(caught.value)
    if where:
        assert f"{settings}{where}" in str(caught.value)
    assert settings.read_bytes() == data
    assert not script.exists()  # nothing written at all
    with pytest.raises(IntegrationError):
        integrations.uninstall("claude", env)
    assert settings.read_bytes() == data


def test_codex_config_toml_comments_survive_and_come_back(root: Path) -> None:
    agent = root / "h/.codex"
    agent.mkdir(parents=True)
    config = agent / "config.toml"
    original = (
        '# my codex config\nmodel = "o3"  # fast\n\n[features]\nweb_search = true\n'
        "hooks = false # I had it off\n\n[profiles.work.features]\nhooks = false\n"
    )
    config.write_text(original)
    env = {"HOME": str(root / "h")}
    integrations.install("codex", env)
    doc = tomllib.loads(config.read_text())
    assert doc["features"] == {"web_search": True, "hooks": True}
    assert doc["profiles"]["work"]["features"] == {"hooks": False}
    assert config.read_text().startswith('# my codex config\nmodel = "o3"  # fast\n')
    first = config.read_bytes()
    integrations.install("codex", env)
    assert config.read_bytes() == first
    integrations.uninstall("codex", env)
    assert config.read_text() == original


def test_codex_invalid_toml_is_an_error_with_the_line(root: Path) -> None:
    agent = root / "h/.codex"
    agent.mkdir(parents=True)
    config = agent / "config.toml"
    config.write_text('model = "o3"\n[features\n')
    with pytest.raises(IntegrationError, match=r"config\.toml:2"):
        integrations.install("codex", {"HOME": str(root / "h")})
    assert config.read_text() == 'model = "o3"\n[features\n'
    assert not (agent / "hooks.json").exists() and not (agent / "herdr-agent-state.sh").exists()


TUI_JSONC = """{
  // my TUI plugins
  "plugin": [
    "./mine.js", // keep me
    ["./tuple.js", {"x": 1}],
  ],
  "theme": "dark", /* trailing */
}
"""


def test_opencode_tui_jsonc_keeps_comments(root: Path) -> None:
    agent = root / "h/.config/opencode"
    agent.mkdir(parents=True)
    config = agent / "tui.jsonc"
    config.write_text(TUI_JSONC)
    env = {"HOME": str(root / "h")}
    integrations.install("opencode", env)
    text = config.read_text()
    assert "// my TUI plugins" in text and "// keep me" in text and "/* trailing */" in text
    assert '"./herdr-tui-session.js"' in text
    first = config.read_bytes()
    integrations.install("opencode", env)
    assert config.read_bytes() == first
    integrations.uninstall("opencode", env)
    assert config.read_text() == TUI_JSONC


def test_opencode_status_needs_the_tui_entry(root: Path) -> None:
    agent = root / "h/.config/opencode"
    agent.mkdir(parents=True)
    env = {"HOME": str(root / "h")}
    integrations.install("opencode", env)
    (agent / "tui.jsonc").write_text("{}\n")
    st = integrations.status(BY_NAME["opencode"], env)
    assert st is not None and st.state == markers.OUTDATED and st.needs_repair
    assert st.describe() == "needs repair (v11)"
    integrations.install("opencode", env)
    assert integrations.status(BY_NAME["opencode"], env).state == markers.CURRENT  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "content",
    [
        pytest.param('{"plugin": "x"}', id="plugin-not-a-list"),
        pytest.param('{"plugin": [', id="unterminated"),
    ],
)
def test_opencode_invalid_tui_jsonc_writes_no_plugin(root: Path, content: str) -> None:
    agent = root / "h/.config/opencode"
    agent.mkdir(parents=True)
    (agent / "tui.jsonc").write_text(content)
    with pytest.raises(IntegrationError, match=r"tui\.jsonc"):
        integrations.install("opencode", {"HOME": str(root / "h")})
    assert not (agent / "plugins").exists() and not (agent / "herdr-tui-session.js").exists()
    assert (agent / "tui.jsonc").read_text() == content


def test_omp_refuses_a_dir_shared_with_pi(root: Path) -> None:
    shared = root / "shared-agent"
    (shared / "extensions").mkdir(parents=True)
    pi_file = shared / "extensions/herdr-agent-state.ts"
    pi_file.write_text("// HERDR_INTEGRATION_ID=pi\n")
    env = {"HOME": str(root / "h"), "PI_CODING_AGENT_DIR": str(shared)}
    with pytest.raises(IntegrationError, match="Pi and OMP resolve to the same extension"):
        integrations.install("omp", env)
    assert pi_file.read_text() == "// HERDR_INTEGRATION_ID=pi\n"
    assert not (shared / "extensions/herdr-omp-agent-state.ts").exists()


def test_kimi_version_gate(root: Path) -> None:
    (root / "h/.kimi-code").mkdir(parents=True)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    kimi = bin_dir / "kimi"
    env = {"HOME": str(root / "h"), "PATH": str(bin_dir)}
    kimi.write_text("#!/bin/sh\necho 'kimi, version 0.13.9'\n")
    kimi.chmod(0o755)
    with pytest.raises(IntegrationError, match=r"kimi code 0\.13\.9 is too old.*upgrade"):
        integrations.install("kimi", env)
    assert not (root / "h/.kimi-code/config.toml").exists()
    kimi.write_text("#!/bin/sh\necho 'v0.14'\n")
    messages = integrations.install("kimi", env)
    assert "requires kimi code 0.14.0 or newer" in messages
    assert not any(m.startswith("warning:") for m in messages)
    kimi.unlink()
    messages = integrations.install("kimi", env)
    assert any(m.startswith("warning: could not run `kimi --version`") for m in messages)


HERMES_CONFIGS = [
    pytest.param(None, id="no-file"),
    pytest.param("model: x\n", id="no-plugins"),
    pytest.param("plugins:\n  enabled:\n    - other\n", id="enabled-list"),
    pytest.param("plugins:\n  disabled:\n    - foo\nmodel: y\n", id="other-children"),
    pytest.param("# top\nplugins:\n  enabled:\n    - a # keep\n\nx: 1\n", id="comments"),
]


@pytest.mark.parametrize("config", HERMES_CONFIGS)
def test_hermes_config_yaml_round_trip(root: Path, config: str | None) -> None:
    agent = root / "h/.hermes"
    agent.mkdir(parents=True)
    path = agent / "config.yaml"
    if config is not None:
        path.write_text(config)
    env = {"HOME": str(root / "h")}
    integrations.install("hermes", env)
    text = path.read_text()
    assert "    - herdr-agent-state" in text
    first = path.read_bytes()
    integrations.install("hermes", env)
    assert path.read_bytes() == first
    integrations.uninstall("hermes", env)
    assert (path.read_text() if path.exists() else None) == config


def test_pi_uninstall_keeps_a_user_file_of_the_same_name(root: Path) -> None:
    ext = root / "h/.pi/agent/extensions"
    ext.mkdir(parents=True)
    mine = ext / "herdr-agent-state.ts"
    mine.write_text("export default function () {}\n")
    messages = integrations.uninstall("pi", {"HOME": str(root / "h")})
    assert mine.read_text() == "export default function () {}\n"
    assert "not herdr's" in messages[0]


# --- hardening ----------------------------------------------------------------------------


def test_a_symlink_we_did_not_make_is_not_followed(root: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a symlink owned by another user")
    env, settings, _script = _claude(root)
    victim = root / "victim.json"
    victim.write_text("{}\n")
    settings.symlink_to(victim)
    os.lchown(settings, 65534, 65534)
    with pytest.raises(IntegrationError, match="symlink owned by uid 65534"):
        integrations.install("claude", env)
    assert victim.read_text() == "{}\n" and settings.is_symlink()


def test_our_own_symlink_is_written_through(root: Path) -> None:
    env, settings, _script = _claude(root)
    real = root / "dotfiles-settings.json"
    real.write_text('{"theme": "dark"}\n')
    settings.symlink_to(real)
    integrations.install("claude", env)
    assert settings.is_symlink()
    assert "SessionStart" in json.loads(real.read_text())["hooks"]


def test_a_config_dir_of_another_user_is_refused(root: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to chown a directory to another user")
    env, settings, script = _claude(root)
    os.chown(settings.parent, 65534, 65534)
    with pytest.raises(IntegrationError, match="owned by uid 65534"):
        integrations.install("claude", env)
    assert not settings.exists() and not script.exists()


def test_a_fifo_in_place_of_the_settings_is_refused(root: Path) -> None:
    env, settings, _script = _claude(root)
    os.mkfifo(settings)
    with pytest.raises(IntegrationError, match="not a regular file"):
        integrations.install("claude", env)
    assert stat.S_ISFIFO(settings.lstat().st_mode)


def test_no_home_is_an_error() -> None:
    with pytest.raises(IntegrationError, match="home directory is not set"):
        integrations.install("claude", {})
    assert integrations.status(BY_NAME["claude"], {}) is None


def test_every_target_is_implemented() -> None:
    assert [n for n in BY_NAME if not integrations.supported(n)] == []


def test_availability_is_an_executable_on_path_or_codex_standalone(root: Path) -> None:
    bin_dir = root / "bin"
    bin_dir.mkdir()
    for name, mode in (("claude", 0o755), ("pi", 0o644)):  # pi: not executable
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(mode)
    (bin_dir / "kilo-code").mkdir()  # a directory is not a binary
    release = root / "h/.codex/packages/standalone/releases/1.2.3/bin"
    release.mkdir(parents=True)
    (release / "codex").write_text("#!/bin/sh\n")
    (release / "codex").chmod(0o755)
    env = {"HOME": str(root / "h"), "PATH": f"{bin_dir}:/nonexistent"}
    available = {r["target"]: r["available"] for r in integrations.listing(env)}
    assert [t for t, yes in available.items() if yes] == ["claude", "codex"]


def test_a_config_dir_others_can_write_is_refused(root: Path) -> None:
    env, settings, script = _claude(root)
    settings.write_text("{}\n")
    os.chmod(settings.parent, 0o777)
    with pytest.raises(IntegrationError, match="others can write to it"):
        integrations.install("claude", env)
    assert settings.read_text() == "{}\n"
    assert not script.exists()


def test_grok_config_is_checked_and_repaired(root: Path) -> None:
    agent = root / "h/.grok"
    agent.mkdir(parents=True)
    env = {"HOME": str(root / "h")}
    integrations.install("grok", env)
    config = agent / "hooks/herdr.json"
    good = config.read_bytes()
    doc = json.loads(good)
    assert doc["hooks"]["SessionStart"][0]["hooks"][0]["command"].startswith("sh '")
    for broken in ("{", '{"hooks": {}}', good.decode().replace("session", "idle")):
        config.write_text(broken)
        st = integrations.status(BY_NAME["grok"], env)
        assert st is not None and st.needs_repair and st.describe() == "needs repair (v1)"
    config.unlink()
    assert integrations.status(BY_NAME["grok"], env).state == markers.OUTDATED  # type: ignore[union-attr]
    integrations.install("grok", env)
    assert config.read_bytes() == good


def test_droid_cleans_its_legacy_hooks_json_but_keeps_user_hooks(root: Path) -> None:
    agent = root / "h/.factory"
    agent.mkdir(parents=True)
    script = agent / "hooks/herdr-agent-state.sh"
    legacy = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Read", "hooks": [{"type": "command", "command": "echo r"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": _command(script, "idle")}]}],
        }
    }
    (agent / "hooks.json").write_text(json.dumps(legacy, indent=2) + "\n")
    messages = integrations.install("droid", {"HOME": str(root / "h")})
    assert f"removed legacy herdr droid hook entries from {agent / 'hooks.json'}" in messages
    assert json.loads((agent / "hooks.json").read_text()) == {
        "hooks": {"PreToolUse": legacy["hooks"]["PreToolUse"]}
    }
    settings = json.loads((agent / "settings.json").read_text())
    assert "matcher" not in settings["hooks"]["SessionStart"][0]


def test_cursor_gets_its_version_key(root: Path) -> None:
    agent = root / "h/.cursor"
    agent.mkdir(parents=True)
    env = {"HOME": str(root / "h")}
    integrations.install("cursor", env)
    doc = json.loads((agent / "hooks.json").read_text())
    assert doc == {
        "version": 1,
        "hooks": {
            "sessionStart": [{"command": _command(agent / "herdr-agent-state.sh", "session")}]
        },
    }
    integrations.uninstall("cursor", env)
    assert not (agent / "hooks.json").exists()
    (agent / "hooks.json").write_text('{"hooks": {"stop": [{"command": "echo bye"}]}}\n')
    integrations.install("cursor", env)
    doc = json.loads((agent / "hooks.json").read_text())
    assert doc["version"] == 1 and doc["hooks"]["stop"] == [{"command": "echo bye"}]


def test_antigravity_owns_only_its_named_block(root: Path) -> None:
    agent = root / "h/.gemini/config"
    agent.mkdir(parents=True)
    hooks = agent / "hooks.json"
    user = '{\n  "lint-checker": {"PostInvocation": [{"type": "command", "command": "lint"}]}\n}\n'
    hooks.write_text(user)
    env = {"HOME": str(root / "h")}
    integrations.install("antigravity_cli", env)
    doc = json.loads(hooks.read_text())
    script = agent / "hooks/herdr-agent-state.sh"
    assert doc["herdr"] == {
        "PreInvocation": [
            {"type": "command", "command": _command(script, "session"), "timeout": 10}
        ]
    }
    stale = dict(doc, herdr={"Stop": [{"type": "command", "command": "old"}]})
    hooks.write_text(json.dumps(stale, indent=2) + "\n")
    integrations.install("antigravity_cli", env)  # the stale block is replaced whole
    assert json.loads(hooks.read_text())["herdr"] == doc["herdr"]
    integrations.uninstall("antigravity_cli", env)
    assert json.loads(hooks.read_text()) == json.loads(user)


def test_antigravity_never_creates_its_dir(root: Path) -> None:
    with pytest.raises(IntegrationError, match="antigravity cli config directory not found"):
        integrations.install("antigravity_cli", {"HOME": str(root / "h")})
    assert not (root / "h/.gemini").exists()


def test_copilot_replaces_stale_camel_case_entries(root: Path) -> None:
    agent = root / "h/.copilot"
    agent.mkdir(parents=True)
    script = agent / "hooks/herdr-agent-state.sh"
    stale = {
        "hooks": {
            "sessionStart": [{"type": "command", "bash": f"bash '{script}'", "timeoutSec": 10}],
            "PreToolUse": [{"type": "command", "bash": "echo mine"}],
        }
    }
    (agent / "settings.json").write_text(json.dumps(stale, indent=2) + "\n")
    integrations.install("copilot", {"HOME": str(root / "h")})
    hooks = json.loads((agent / "settings.json").read_text())["hooks"]
    assert "sessionStart" not in hooks
    assert hooks["PreToolUse"] == [{"type": "command", "bash": "echo mine"}]
    assert hooks["SessionStart"] == [
        {"type": "command", "bash": f"bash '{script}'", "timeoutSec": 10}
    ]


@pytest.mark.parametrize("target", ["opencode", "kilo"])
@pytest.mark.parametrize("xdg", ["", "relative/dir"], ids=["unset", "relative"])
def test_xdg_followers_ignore_an_unset_or_relative_xdg_config_home(target: str, xdg: str) -> None:
    """xdg-basedir ignores a relative XDG_CONFIG_HOME, and so do we: ~/.config/<name>."""
    from herdr.integrations.targets import config_dir

    env = {"HOME": "/h", "XDG_CONFIG_HOME": xdg}
    assert config_dir(BY_NAME[target], env) == f"/h/.config/{target}"
