"""The emulator's cffi handle: the cached out-of-line module and its fallback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from herdr.terminal import ghostty_ffi
from herdr.terminal.emulator import FFI_MODE, Emulator


def _usable(ffi: Any, lib: Any) -> None:
    handle = ffi.new("GhosttyTerminal*")
    assert lib.ghostty_terminal_new(ffi.NULL, handle, 10, 3) == 0
    lib.ghostty_terminal_free(handle[0])


def test_out_of_line_module_is_generated_once_and_reused(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    ffi, lib = ghostty_ffi.out_of_line(env)
    _usable(ffi, lib)
    files = list((tmp_path / "herdr" / "ffi").glob("_herdr_ghostty_*.py"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    ffi2, lib2 = ghostty_ffi.out_of_line(env)
    _usable(ffi2, lib2)
    assert files[0].stat().st_mtime_ns == stamp  # loaded, not written again


def test_damaged_cache_file_is_rewritten(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    ghostty_ffi.out_of_line(env)
    (path,) = (tmp_path / "herdr" / "ffi").glob("_herdr_ghostty_*.py")
    path.write_text("this is not python (", encoding="utf-8")
    ffi, lib = ghostty_ffi.out_of_line(env)
    _usable(ffi, lib)


def test_unusable_cache_still_gives_the_fast_handle(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    ffi, lib, how = ghostty_ffi.load({"XDG_CACHE_HOME": str(blocker)})  # mkdir fails
    assert how == "out-of-line"  # generated into a private temp dir for this process
    _usable(ffi, lib)
    assert blocker.read_text(encoding="utf-8") == ""


def test_pyghostty_handle_is_the_fallback() -> None:
    ffi, lib = ghostty_ffi.in_line()
    _usable(ffi, lib)


def test_cache_key_follows_the_header() -> None:
    assert ghostty_ffi.module_name("int a;") != ghostty_ffi.module_name("int b;")


def test_the_emulator_runs_on_the_fast_handle() -> None:
    assert FFI_MODE == "out-of-line"
    e = Emulator(20, 4)
    e.feed(b"\x1b[31mred\x1b[0m")
    e.scroll_viewport(-1)
    e.scroll_to_bottom()
    assert e.text_rows()[0] == "red"
