"""Directory and file ownership checks (issue: other local users are hostile).

Ownership by another user is made real with ``os.chown`` to uid 65534, so these tests
need root; they are skipped otherwise.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from herdr.config import safe_paths
from herdr.config.safe_paths import UnsafePathError

OTHER = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _mkdir(path: Path, perm: int, owner: int | None = None) -> None:
    path.mkdir()
    os.chmod(path, perm)
    if owner is not None:
        os.chown(path, owner, owner)


# --------------------------------------------------------------------- private dirs


@pytest.mark.parametrize(
    ("perm", "expect"),
    [
        pytest.param(0o700, 0o700, id="private-kept"),
        pytest.param(0o755, 0o700, id="world-readable-tightened"),
        pytest.param(0o777, 0o700, id="world-writable-tightened"),
        pytest.param(0o750, 0o700, id="group-readable-tightened"),
    ],
)
def test_own_private_dir_is_tightened(tmp_path: Path, perm: int, expect: int) -> None:
    target = tmp_path / "d"
    _mkdir(target, perm)
    safe_paths.check_private_dir(str(target))
    assert mode(target) == expect


def test_own_open_dir_is_refused_without_tightening(tmp_path: Path) -> None:
    target = tmp_path / "d"
    _mkdir(target, 0o755)
    with pytest.raises(UnsafePathError, match=r"mode 0755.*fix: chmod 700"):
        safe_paths.check_private_dir(str(target), tighten=False)
    assert mode(target) == 0o755


def test_failed_chmod_is_an_error_not_a_shrug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "d"
    _mkdir(target, 0o755)

    def refuse(path: object, perm: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chmod", refuse)
    with pytest.raises(UnsafePathError, match="chmod 700 failed: Operation not permitted"):
        safe_paths.check_private_dir(str(target))


@needs_root
@pytest.mark.parametrize("perm", [0o700, 0o755], ids=["private", "open"])
def test_foreign_dir_is_refused_and_left_alone(tmp_path: Path, perm: int) -> None:
    target = tmp_path / "d"
    _mkdir(target, perm, owner=OTHER)
    with pytest.raises(UnsafePathError) as info:
        safe_paths.check_private_dir(str(target))
    message = str(info.value)
    assert str(target) in message
    assert f"owner uid {OTHER}" in message
    assert f"mode {perm:04o}" in message
    assert "fix:" in message and "\n" not in message
    assert mode(target) == perm and os.stat(target).st_uid == OTHER


@needs_root
def test_foreign_symlink_to_a_dir_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    _mkdir(real, 0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    os.lchown(link, OTHER, OTHER)
    with pytest.raises(UnsafePathError, match="symlink owned by uid 65534"):
        safe_paths.check_private_dir(str(link))


def test_own_symlink_to_own_dir_is_accepted(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles"
    _mkdir(real, 0o700)
    link = tmp_path / "herdr"
    link.symlink_to(real)
    safe_paths.check_private_dir(str(link))


def test_non_directory_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("x")
    with pytest.raises(UnsafePathError, match="not a directory"):
        safe_paths.check_private_dir(str(target))


def test_ensure_private_tree_creates_every_level_0700(tmp_path: Path) -> None:
    root = tmp_path / "c" / "herdr"
    leaf = root / "sessions" / "work"
    safe_paths.ensure_private_tree(str(root), str(leaf))
    for path in (root, root / "sessions", leaf):
        assert mode(path) == 0o700


@needs_root
def test_ensure_private_tree_refuses_a_foreign_middle_level(tmp_path: Path) -> None:
    root = tmp_path / "herdr"
    _mkdir(root, 0o700)
    _mkdir(root / "sessions", 0o700, owner=OTHER)
    with pytest.raises(UnsafePathError, match="sessions has unsafe permissions"):
        safe_paths.ensure_private_tree(str(root), str(root / "sessions" / "work"))
    assert not (root / "sessions" / "work").exists()


# --------------------------------------------------------------------- shared dirs


@pytest.mark.parametrize(
    ("perm", "owner", "ok"),
    [
        pytest.param(0o1777, 0, True, id="tmp-like-sticky-root"),
        pytest.param(0o755, None, True, id="own-not-writable-by-others"),
        pytest.param(0o700, None, True, id="own-private"),
        pytest.param(0o777, None, False, id="world-writable-not-sticky"),
        pytest.param(0o775, None, False, id="group-writable-not-sticky"),
        pytest.param(0o1777, OTHER, False, id="sticky-but-foreign-owner"),
        pytest.param(0o755, OTHER, False, id="foreign-owner"),
    ],
)
def test_shared_socket_dir(tmp_path: Path, perm: int, owner: int | None, ok: bool) -> None:
    if owner is not None and os.geteuid() != 0:
        pytest.skip("chown needs root")
    target = tmp_path / "s"
    _mkdir(target, perm, owner=owner)
    if ok:
        safe_paths.check_shared_dir(str(target))
    else:
        with pytest.raises(UnsafePathError, match=str(target)):
            safe_paths.check_shared_dir(str(target))
    assert mode(target) == perm  # a shared directory is never changed


# --------------------------------------------------------------------- files we append to


def _plant_symlink(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    link = tmp_path / "server.log"
    link.symlink_to(victim)
    return link


def _plant_fifo(tmp_path: Path) -> Path:
    path = tmp_path / "server.log"
    os.mkfifo(path)
    return path


def _plant_foreign(tmp_path: Path) -> Path:
    path = tmp_path / "server.log"
    path.write_text("theirs\n")
    os.chown(path, OTHER, OTHER)
    return path


@pytest.mark.parametrize(
    ("plant", "root_only"),
    [
        pytest.param(_plant_symlink, False, id="symlink"),
        pytest.param(_plant_fifo, False, id="fifo"),
        pytest.param(_plant_foreign, True, id="foreign-file"),
    ],
)
def test_open_private_append_refuses_planted_files(
    tmp_path: Path, plant: Callable[[Path], Path], root_only: bool
) -> None:
    if root_only and os.geteuid() != 0:
        pytest.skip("chown needs root")
    path = plant(tmp_path)
    with pytest.raises(UnsafePathError, match="refusing to write"):
        safe_paths.open_private_append(str(path))
    victim = tmp_path / "victim"
    if victim.exists():
        assert victim.read_text() == "precious\n"


def test_open_private_append_creates_0600_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "launch.log"
    for text in (b"one\n", b"two\n"):
        fd = safe_paths.open_private_append(str(path))
        os.write(fd, text)
        os.close(fd)
    assert path.read_bytes() == b"one\ntwo\n"
    assert mode(path) == 0o600
