"""User kinds and local overrides are read only from files and directories of ours alone;
a link is followed only when it is ours (real files, a second uid via ``os.chown``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from herdr.detect.agents import Agent, parse_agent_label, user_agents
from herdr.detect.manifest.sources import (
    SOURCE_BUNDLED,
    SOURCE_OVERRIDE,
    ManifestDirs,
    load_agent_manifest,
)
from herdr.detect.owned_files import UntrustedFile, read_owned
from herdr.detect.user_registry import UserKindRegistry
from herdr_testing.foreign_user import NEEDS_ROOT, NOBODY

KIND = 'label = "zork"\nprocess_names = ["zork"]\n'
MANIFEST = 'id = "zork"\nversion = "1"\n[[rules]]\nid = "p"\nstate = "idle"\ncontains = ["zork>"]\n'
OVERRIDE = 'id = "claude"\n[[rules]]\nid = "x"\nstate = "idle"\ncontains = ["zzz"]\n'


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[UserKindRegistry]:
    agents = tmp_path / "agents"
    agents.mkdir()
    yield UserKindRegistry(str(agents))
    UserKindRegistry(str(tmp_path / "none")).load()  # leave no user kinds registered


def _write_kind(agents: Path) -> None:
    (agents / "zork.toml").write_text(KIND, "utf-8")
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")


def _foreign(path: Path) -> None:
    os.chown(path, NOBODY, NOBODY, follow_symlinks=False)


def _world_writable(path: Path) -> None:
    os.chmod(path, 0o666)


def _group_writable_dir(path: Path) -> None:
    os.chmod(path.parent, 0o775)


def _link_to_foreign(path: Path) -> None:
    """The kind file becomes our link to another user's copy of it."""
    elsewhere = path.parent.parent / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    target = elsewhere / path.name
    target.write_bytes(path.read_bytes())
    _foreign(target)
    path.unlink()
    path.symlink_to(target)


def _foreign_link(path: Path) -> None:
    """Another user's link (to a file of ours) in our directory."""
    target = path.parent.parent / f"ours-{path.name}"
    target.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(target)
    _foreign(path)


REFUSED: list[tuple[str, str, Callable[[Path], None], str]] = [
    ("kind-owned-by-other", "zork.toml", _foreign, "file owned by uid 65534"),
    ("manifest-owned-by-other", "zork.manifest.toml", _foreign, "file owned by uid 65534"),
    ("kind-world-writable", "zork.toml", _world_writable, "writable by group or others"),
    ("manifest-world-writable", "zork.manifest.toml", _world_writable, "mode 0666"),
    ("dir-group-writable", "zork.toml", _group_writable_dir, "directory is writable"),
    ("link-to-foreign-file", "zork.toml", _link_to_foreign, "links to"),
    ("foreign-link", "zork.toml", _foreign_link, "symlink owned by uid 65534"),
]


@NEEDS_ROOT
@pytest.mark.parametrize(
    ("name", "spoil", "fragment"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_untrusted_kind_is_refused_with_a_file_reason_diagnostic(
    registry: UserKindRegistry, name: str, spoil: Callable[[Path], None], fragment: str
) -> None:
    agents = Path(registry.directory)
    _write_kind(agents)
    registry.load()
    assert parse_agent_label("zork") is not None

    spoil(agents / name)
    registry.load()
    assert user_agents() == ()  # dropped, not kept as "last good": it is untrusted
    assert parse_agent_label("zork") is None
    assert len(registry.errors) == 1, registry.errors
    error = registry.errors[0]
    where = agents if spoil is _group_writable_dir else agents / name
    assert error.startswith(f"{where}: "), error  # `file: reason`, no line
    assert fragment in error


def test_our_link_to_our_file_still_loads(registry: UserKindRegistry, tmp_path: Path) -> None:
    """A dotfile manager's link of ours to a file of ours works, like other config files."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    _write_kind(dotfiles)
    agents = Path(registry.directory)
    for name in ("zork.toml", "zork.manifest.toml"):
        (agents / name).symlink_to(dotfiles / name)
    registry.load()
    assert registry.errors == []
    assert parse_agent_label("zork") is not None


@NEEDS_ROOT
def test_refused_directory_loads_nothing_and_says_so_once(registry: UserKindRegistry) -> None:
    agents = Path(registry.directory)
    _write_kind(agents)
    _foreign(agents)
    registry.load()
    assert user_agents() == ()
    assert registry.errors == [
        f"{agents}: directory owned by uid 65534, not by you (uid 0); not loaded"
    ]


def test_read_owned_never_opens_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "zork.toml"
    os.mkfifo(fifo)
    with pytest.raises(UntrustedFile, match="not a regular file"):
        read_owned(str(fifo), 1024)  # returns at once: opened non-blocking, then refused


def _dirs(tmp_path: Path) -> ManifestDirs:
    overrides = tmp_path / "agent-detection"
    overrides.mkdir(exist_ok=True)
    return ManifestDirs(overrides, tmp_path / "remote", tmp_path / "status.toml")


CLAUDE = Agent("claude")


@NEEDS_ROOT
@pytest.mark.parametrize(
    ("spoil", "fragment"),
    [
        (_foreign, "file owned by uid 65534"),
        (_world_writable, "writable by group or others"),
        (_link_to_foreign, "links to"),
        (_group_writable_dir, "directory is writable"),
    ],
    ids=["owned-by-other", "world-writable", "link-to-foreign-file", "dir-group-writable"],
)
def test_untrusted_override_is_ignored_with_a_warning(
    tmp_path: Path, spoil: Callable[[Path], None], fragment: str
) -> None:
    dirs = _dirs(tmp_path)
    override = dirs.override_dir / "claude.toml"
    override.write_text(OVERRIDE, "utf-8")
    assert load_agent_manifest(CLAUDE, dirs).source_kind == SOURCE_OVERRIDE

    spoil(override)
    loaded = load_agent_manifest(CLAUDE, dirs)
    assert loaded.source_kind == SOURCE_BUNDLED
    assert loaded.warning is not None and fragment in loaded.warning
    assert loaded.warning.startswith("ignored override ")


def test_our_link_to_our_override_still_wins(tmp_path: Path) -> None:
    dirs = _dirs(tmp_path)
    real = tmp_path / "claude-rules.toml"
    real.write_text(OVERRIDE, "utf-8")
    (dirs.override_dir / "claude.toml").symlink_to(real)
    loaded = load_agent_manifest(CLAUDE, dirs)
    assert loaded.source_kind == SOURCE_OVERRIDE and loaded.warning is None
