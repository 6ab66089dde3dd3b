"""The layering rules of DESIGN.md §3, checked on the source (like herdr's hot-path script).

* PURE modules do no I/O: they import none of the I/O modules below, at any level.
* ``client/`` never imports ``server/`` or ``terminal/`` (it speaks the public protocol).
* ``detect/`` imports nothing of herdr above it.
* The CLI's start-up path imports no asyncio, uvloop, orjson, regex or emulator.

A new module that breaks a rule fails here with the module and the import named.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from herdr_testing import HerdrEnv

SRC = Path(__file__).resolve().parents[1] / "src" / "herdr"

IO_MODULES = frozenset(
    {
        "asyncio",
        "fcntl",
        "io",
        "os",
        "pathlib",
        "pty",
        "pyghostty",
        "select",
        "selectors",
        "shutil",
        "signal",
        "socket",
        "subprocess",
        "tempfile",
        "termios",
        "threading",
        "uvloop",
        "herdr.terminal",
        "herdr.server",
    }
)

# Modules that decide things from plain values (DESIGN §3 "PURE", and the pure parts of
# each package); globs are relative to src/herdr.
PURE = (
    "detect/agents.py",
    "detect/process.py",
    "detect/manifest/[!s]*.py",  # every manifest module but sources.py (it reads files)
    "detect/manifest/schema.py",
    "runtime/*.py",
    "runtime/agent_state/*.py",
    "runtime/model/*.py",
    "persist/snapshot.py",
    "persist/mapping.py",
    "persist/resume.py",
    "persist/saver.py",
    "persist/_reader.py",
    "client/*.py",  # all but the I/O shell of the client (CLIENT_IO below)
    "client/actions.py",
    "client/ansi.py",
    "client/targets.py",
    "api/protocol.py",
    "api/attach_messages.py",
    "api/validate.py",
    "api/key_names.py",
    "api/schema*.py",
    "api/command_catalog.py",
    "config/reference.py",
    "config/default_config.py",
    "terminal/escapes.py",
    "terminal/osc.py",
    "integrations/json_edit.py",
    "integrations/toml_edit.py",
    "integrations/yaml_edit.py",
    "integrations/hook_config.py",
    "integrations/plugin_list.py",
    "integrations/markers.py",
    "integrations/targets.py",
    "plugins/manifest.py",
    "remote/target.py",
    "remote/machines.py",
    "remote/ssh_command.py",
    "remote/cycle.py",
    "web/auth.py",
    "web/policy.py",
    "web/screen.py",
)


# The client's I/O shell: the app's loop, its connections, the terminal, the config file.
CLIENT_IO = frozenset(
    {"app.py", "connection.py", "settings.py", "terminal.py", "closing.py", "command_line.py"}
    | {"first_frame.py"}  # the launcher's first frame, on a blocking socket
    | {"sessions_probe.py", "settings_view.py"}  # the navigator's probes, config.toml writes
    | {"machines_probe.py"}  # the sidebar's other machines, read over ssh
    | {"custom_commands.py"}  # `[[keys.command]] type = "shell"` starts a process
    | {"clipboard_image.py", "image_paste.py"}  # remote_image_paste: clipboard tools, ssh
)


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def imports_of(path: Path) -> frozenset[str]:
    """Every module ``path`` imports, anywhere in the file (lazy imports count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = _module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else ""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return frozenset(found)


def _matches(module: str, roots: frozenset[str]) -> bool:
    return any(module == root or module.startswith(root + ".") for root in roots)


def pure_files() -> list[Path]:
    files: set[Path] = set()
    for pattern in PURE:
        files.update(SRC.glob(pattern))  # a package's __init__ re-exports: it counts too
    return sorted(p for p in files if not (p.parent.name == "client" and p.name in CLIENT_IO))


def files_under(package: str) -> list[Path]:
    return sorted((SRC / package).rglob("*.py"))


@pytest.mark.parametrize("path", pure_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_pure_modules_do_no_io(path: Path) -> None:
    bad = sorted(m for m in imports_of(path) if _matches(m, IO_MODULES))
    assert not bad, f"{path.relative_to(SRC)} is PURE but imports {bad}"


def test_the_pure_list_names_real_modules() -> None:
    for pattern in PURE:
        assert list(SRC.glob(pattern)), f"PURE pattern {pattern} matches nothing"


@pytest.mark.parametrize("path", files_under("client"), ids=lambda p: p.name)
def test_client_speaks_only_the_public_protocol(path: Path) -> None:
    bad = sorted(m for m in imports_of(path) if _matches(m, frozenset({"herdr.server"})))
    bad += sorted(m for m in imports_of(path) if _matches(m, frozenset({"herdr.terminal"})))
    assert not bad, f"client/{path.name} imports {bad}"


@pytest.mark.parametrize(
    "path", files_under("detect"), ids=lambda p: str(p.relative_to(SRC / "detect"))
)
def test_detect_imports_nothing_above_it(path: Path) -> None:
    # herdr.config.paths is a leaf (XDG locations from an env mapping), below everything.
    allowed = frozenset({"herdr.detect", "herdr.vocab", "herdr.config.paths"})
    bad = sorted(m for m in imports_of(path) if m.startswith("herdr") and not _matches(m, allowed))
    bad = [m for m in bad if m not in ("herdr", "herdr.config")]
    assert not bad, f"detect/{path.relative_to(SRC / 'detect')} imports {bad}"


FORBIDDEN_ON_CLI_PATH = ("asyncio", "uvloop", "orjson", "regex", "pyghostty", "herdr.terminal")


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["pane", "list"], ["status"]],
    ids=["help", "pane-list", "status"],
)
def test_cli_start_up_path_stays_light(argv: list[str], tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "c"),
        "XDG_STATE_HOME": str(tmp_path / "s"),
        "PATH": "/usr/bin:/bin",
    }
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "herdr", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    loaded = {
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    heavy = sorted(m for m in loaded if _matches(m, frozenset(FORBIDDEN_ON_CLI_PATH)))
    assert loaded, proc.stderr[-500:]
    assert not heavy, f"herdr {' '.join(argv)} imports {heavy}"


def test_tui_first_frame_path_imports_no_loop() -> None:
    # the launcher's TUI draws its first frame before asyncio (herdr.client.first_frame):
    # everything it imports up to then must leave the loop and its connection out
    probe = (
        "import sys, herdr.cli.main, herdr.cli.launch as launch\n"
        "launch.preload_client()\n"
        "import herdr.client.first_frame\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(proc.stdout.split())
    assert "herdr.client.app" in loaded
    forbidden = frozenset({*FORBIDDEN_ON_CLI_PATH, "herdr.client.connection", "socket"})
    assert not sorted(m for m in loaded if _matches(m, forbidden))
    # the client draws rectangles it is sent; the split trees (seven dataclasses built
    # at import) are the server's
    assert "herdr.runtime.rect" in loaded
    assert "herdr.runtime.layout" not in loaded


def _server_graph() -> dict[str, frozenset[str]]:
    """herdr.server's modules and which of them each imports (TYPE_CHECKING and lazy
    imports count: a cycle there still means two modules that cannot be read apart)."""
    paths = {_module_name(path): path for path in files_under("server")}
    return {name: imports_of(path) & paths.keys() for name, path in paths.items()}


def _cycle_from(graph: dict[str, frozenset[str]], start: str) -> list[str] | None:
    """A path of imports from ``start`` back to ``start``, if there is one."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        module, path = stack.pop()
        for imported in sorted(graph[module]):
            if imported == start:
                return [*path, start]
            if imported not in seen:
                seen.add(imported)
                stack.append((imported, [*path, imported]))
    return None


def test_the_server_graph_counts_type_checking_imports() -> None:
    # core.py imports panes only under TYPE_CHECKING (for ServerCore.panes' type)
    assert "herdr.server.panes" in _server_graph()["herdr.server.core"]


@pytest.mark.parametrize(
    "module",
    sorted(_module_name(path) for path in files_under("server")),
    ids=lambda name: name.rsplit(".", 1)[-1],
)
def test_server_modules_import_no_cycle(module: str) -> None:
    """No server module reaches itself through its imports; in particular agents.py,
    core.py and panes.py do not import each other round (they did, via TYPE_CHECKING)."""
    cycle = _cycle_from(_server_graph(), module)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


# What a server's start does not need: the manifest download (urllib.request with
# http.client and email), the integration installer, the web view's aiohttp; each is
# imported where it is first used.
NOT_AT_SERVER_START = ("urllib.request", "herdr.integrations.install", "aiohttp")


def test_server_start_imports_leave_out_what_waits() -> None:
    probe = "import sys, herdr.server.app\nprint(' '.join(sorted(sys.modules)))\n"
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(proc.stdout.split())
    assert "herdr.server.methods_integrations" in loaded
    assert "herdr.server.manifest_updates" in loaded
    assert [m for m in NOT_AT_SERVER_START if m in loaded] == []


def test_a_started_server_parses_no_arguments_with_argparse(herdr_env: HerdrEnv) -> None:
    # `herdr server [--session NAME]` is how the launcher starts one: a cold start waits
    # for it, and argparse with its parsers is ~11 ms of that
    for args in ((), ("--session", "work")):
        server = herdr_env.start_server(*args, env={"PYTHONPROFILEIMPORTTIME": "1"})
        try:
            loaded = {
                line.rsplit("|", 1)[-1].strip()
                for line in server.log_text().splitlines()
                if line.startswith("import time:")
            }
            assert "herdr.server.app" in loaded
            assert "argparse" not in loaded and "herdr.cli.parsing" not in loaded, args
        finally:
            server.stop()
