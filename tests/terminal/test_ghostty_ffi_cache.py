"""The cached FFI module runs only when it and its directories are ours alone.

Each case prepares ``$XDG_CACHE_HOME/herdr/ffi`` in a temporary dir and starts a fresh
Python process (the loader runs once per process, at import of the emulator) that
feeds bytes to an Emulator and reads a row back. A planted module is the real
generated module plus a line that writes a marker file: the marker tells whether the
process executed it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

NOBODY = 65534
WRITABLE = "writable by group or others"
NOT_OURS = f"not owned by uid {os.geteuid()}"
FOREIGN_FILE = f"(owner uid {NOBODY}, mode -rw-------): {NOT_OURS}"
FOREIGN_DIR = f"(owner uid {NOBODY}, mode drwx------): {NOT_OURS}"
PROBE = (
    "import json\n"
    "from herdr.terminal.emulator import FFI_MODE, Emulator\n"
    "e = Emulator(20, 3)\n"
    "e.feed(b'hello \\x1b[1mworld\\x1b[0m')\n"
    "print(json.dumps({'mode': FFI_MODE, 'row': e.text_rows()[0]}))\n"
)

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="planting a file owned by uid 65534 needs root (os.chown)"
)


@dataclass
class Run:
    mode: str
    row: str
    stderr: str


@dataclass
class Cache:
    """A temporary XDG_CACHE_HOME and the paths the loader uses inside it."""

    root: Path
    base: Path
    source: bytes
    name: str

    @property
    def herdr(self) -> Path:
        return self.base / "herdr"

    @property
    def ffi(self) -> Path:
        return self.herdr / "ffi"

    @property
    def module(self) -> Path:
        return self.ffi / self.name

    @property
    def marker(self) -> Path:
        return self.root / "executed"

    def planted(self) -> bytes:
        """A working module that also leaves a marker when executed."""
        return self.source + f"\nopen({str(self.marker)!r}, 'w').write('ran')\n".encode()

    def write_module(self, data: bytes, path: Path | None = None, mode: int = 0o600) -> Path:
        target = path or self.module
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        target.write_bytes(data)
        target.chmod(mode)
        return target

    def run(self) -> Run:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.root / "home"),
            "XDG_CACHE_HOME": str(self.base),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        proc = subprocess.run(
            [sys.executable, "-c", PROBE],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout.strip().splitlines()[-1])
        return Run(doc["mode"], doc["row"], proc.stderr)


def _run_fresh(root: Path) -> tuple[bytes, str]:
    cache = Cache(root, root / "cache", b"", "")
    first = cache.run()
    assert first.mode == "out-of-line", first.stderr
    (module,) = cache.ffi.glob("_herdr_ghostty_*.py")
    return module.read_bytes(), module.name


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, str]:
    """The real module's bytes and file name, generated once by a fresh process."""
    return _run_fresh(tmp_path_factory.mktemp("prime"))


@pytest.fixture
def cache(tmp_path: Path, generated: tuple[bytes, str]) -> Cache:
    source, name = generated
    return Cache(tmp_path, tmp_path / "cache", source, name)


def assert_works(run: Run) -> None:
    assert run.row == "hello world"
    assert run.mode == "out-of-line"


# --- a planted or exposed module is never executed ----------------------------------------


def _plant_foreign_file(cache: Cache) -> Path:
    path = cache.write_module(cache.planted())
    os.chown(path, NOBODY, NOBODY)
    return path


def _plant_group_writable_file(cache: Cache) -> Path:
    return cache.write_module(cache.planted(), mode=0o620)


def _plant_other_writable_file(cache: Cache) -> Path:
    return cache.write_module(cache.planted(), mode=0o602)


def _plant_symlink(cache: Cache) -> Path:
    elsewhere = cache.write_module(cache.planted(), path=cache.root / "elsewhere" / cache.name)
    cache.ffi.mkdir(parents=True, mode=0o700)
    cache.module.symlink_to(elsewhere)
    return cache.module


def _plant_fifo(cache: Cache) -> Path:
    cache.ffi.mkdir(parents=True, mode=0o700)
    os.mkfifo(cache.module, 0o600)
    return cache.module


@pytest.mark.parametrize(
    ("plant", "reason"),
    [
        pytest.param(_plant_foreign_file, FOREIGN_FILE, marks=needs_root, id="owned-by-65534"),
        pytest.param(
            _plant_group_writable_file, "-rw--w----): " + WRITABLE, id="group-writable-file"
        ),
        pytest.param(
            _plant_other_writable_file, "-rw-----w-): " + WRITABLE, id="other-writable-file"
        ),
        pytest.param(_plant_symlink, "lrwxrwxrwx): a symlink", id="symlink-to-module"),
        pytest.param(_plant_fifo, "prw-------): not a regular file", id="fifo"),
    ],
)
def test_untrusted_module_is_not_executed_and_replaced(
    cache: Cache, plant: Callable[[Cache], Path], reason: str
) -> None:
    path = plant(cache)
    run = cache.run()
    assert_works(run)
    assert not cache.marker.exists()
    assert f"refusing to execute the FFI cache file {path} (" in run.stderr
    assert reason in run.stderr
    # Our own directory: the entry was replaced (never followed) by a fresh private file.
    st = os.lstat(cache.module)
    assert (st.st_uid, st.st_mode & 0o777) == (os.geteuid(), 0o600)
    assert cache.module.read_bytes() == cache.source
    again = cache.run()
    assert_works(again)
    assert "refusing" not in again.stderr


def test_symlink_target_is_left_alone(cache: Cache) -> None:
    _plant_symlink(cache)
    elsewhere = cache.root / "elsewhere" / cache.name
    cache.run()
    assert elsewhere.read_bytes() == cache.planted()
    assert not cache.module.is_symlink()


# --- a directory someone else can write is not used at all --------------------------------


# Each returns (the refused directory, the planted module).
Prepared = tuple[Path, Path]


def _ffi_dir_group_writable(cache: Cache) -> Prepared:
    planted = cache.write_module(cache.planted())
    cache.ffi.chmod(0o770)
    return cache.ffi, planted


def _herdr_dir_other_writable(cache: Cache) -> Prepared:
    planted = cache.write_module(cache.planted())
    cache.herdr.chmod(0o757)
    return cache.herdr, planted


def _ffi_dir_foreign(cache: Cache) -> Prepared:
    planted = cache.write_module(cache.planted())
    os.chown(cache.ffi, NOBODY, NOBODY)
    return cache.ffi, planted


def _ffi_dir_symlink(cache: Cache) -> Prepared:
    elsewhere = cache.root / "elsewhere"
    planted = cache.write_module(cache.planted(), path=elsewhere / cache.name)
    cache.herdr.mkdir(parents=True, mode=0o700)
    cache.ffi.symlink_to(elsewhere)
    return cache.ffi, planted


@pytest.mark.parametrize(
    ("prepare", "reason"),
    [
        pytest.param(
            _ffi_dir_group_writable, "drwxrwx---): " + WRITABLE, id="ffi-dir-group-writable"
        ),
        pytest.param(
            _herdr_dir_other_writable, "drwxr-xrwx): " + WRITABLE, id="herdr-dir-other-writable"
        ),
        pytest.param(_ffi_dir_foreign, FOREIGN_DIR, marks=needs_root, id="ffi-dir-65534"),
        pytest.param(_ffi_dir_symlink, "lrwxrwxrwx): a symlink", id="ffi-dir-symlink"),
    ],
)
def test_untrusted_cache_dir_is_not_used(
    cache: Cache, prepare: Callable[[Cache], Prepared], reason: str
) -> None:
    directory, planted = prepare(cache)
    run = cache.run()
    assert_works(run)  # from a private copy
    assert not cache.marker.exists()
    assert f"not using the FFI cache directory {directory} (" in run.stderr
    assert reason in run.stderr
    assert planted.read_bytes() == cache.planted()  # nothing written into it either
    assert [p.name for p in planted.parent.iterdir()] == [cache.name]


# --- our own cache is created private and reused ------------------------------------------


def test_fresh_cache_is_private(cache: Cache) -> None:
    assert_works(cache.run())
    assert cache.herdr.stat().st_mode & 0o777 == 0o700
    assert cache.ffi.stat().st_mode & 0o777 == 0o700
    assert cache.module.stat().st_mode & 0o777 == 0o600
    assert cache.module.read_bytes() == cache.source
    assert [p.name for p in cache.ffi.iterdir()] == [cache.name]  # no temp file left


def test_own_cache_is_used_without_regeneration(cache: Cache) -> None:
    cache.write_module(cache.planted())
    before = cache.module.stat()
    run = cache.run()
    assert_works(run)
    assert cache.marker.read_text() == "ran"  # our own file was executed
    after = cache.module.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert "FFI" not in run.stderr


def test_existing_readable_own_dir_is_fine(cache: Cache) -> None:
    cache.write_module(cache.source, mode=0o644)
    cache.ffi.chmod(0o755)
    cache.herdr.chmod(0o755)
    before = cache.module.stat()
    assert_works(cache.run())
    assert cache.module.stat().st_ino == before.st_ino


def test_damaged_own_module_is_written_again(cache: Cache) -> None:
    cache.write_module(b"this is not python (")
    assert_works(cache.run())
    assert cache.module.read_bytes() == cache.source


def test_concurrent_first_starts_each_load_a_whole_module(cache: Cache) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cache.root / "home"),
        "XDG_CACHE_HOME": str(cache.base),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROBE],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        doc = json.loads(out.strip().splitlines()[-1])
        assert (doc["mode"], doc["row"]) == ("out-of-line", "hello world")
        assert "FFI" not in err
    assert [p.name for p in cache.ffi.iterdir()] == [cache.name]
    assert cache.module.read_bytes() == cache.source
