"""libghostty-vt's cffi handle for the emulator adapter, without parsing its header on
every start.

pyghostty declares the library in ABI *in-line* mode: importing it runs pycparser over
an 80 kB header (~0.35 s), and every new type string later costs another parse against
that header (~0.3 s before the first pane exists). That is most of a cold ``herdr``
start. cffi's *out-of-line* ABI mode serialises the parsed declarations into a small
Python module; loading that module parses nothing. We generate it once per
(pyghostty header, cffi, Python) combination into the user's cache directory, load the
same shared library pyghostty ships, and fall back to pyghostty's own handle if
anything about the cache does not work. Only :mod:`herdr.terminal.emulator` uses this.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# Layout-identical struct twins of tagged unions passed by value (ABI-mode cffi cannot
# pass a union): same call ABI on x86-64 SysV and AAPCS64 (see pyghostty._ffi).
TWINS = """
typedef struct { uint16_t x; uint32_t y; uint64_t _pad; } GhosttyPointValueS;
typedef struct { GhosttyPointTag tag; GhosttyPointValueS value; } GhosttyPointS;
typedef struct { GhosttyTerminalScrollViewportTag tag;
                 struct { intptr_t delta; uint64_t _pad; } value; } HerdrScrollViewportS;
"""
TWIN_OF = {
    "GhosttyPointS": "GhosttyPoint",
    "HerdrScrollViewportS": "GhosttyTerminalScrollViewport",
}


def _package_dir() -> Path:
    spec = importlib.util.find_spec("pyghostty")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("pyghostty is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _header(package: Path) -> str:
    """pyghostty's declarations, read without importing the package (which parses them)."""
    spec = importlib.util.spec_from_file_location("_herdr_ghostty_cdef", package / "_cdef.py")
    if spec is None or spec.loader is None:
        raise ImportError("pyghostty._cdef not found")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cdef: str = module.CDEF
    return cdef


def library_path(package: Path, env: Mapping[str, str]) -> str:
    """The shared library pyghostty loads (``PYGHOSTTY_LIB`` wins, as in pyghostty)."""
    override = env.get("PYGHOSTTY_LIB")
    if override:
        return override
    for ext in (".so", ".dylib", ".dll"):
        candidate = package / "_lib" / f"libghostty-vt{ext}"
        if candidate.exists():
            return str(candidate)
    raise OSError(f"libghostty-vt not found in {package / '_lib'}")


def cache_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or "~", ".cache")
    return Path(os.path.expanduser(base)) / "herdr" / "ffi"


def module_name(cdef: str) -> str:
    import cffi

    key = "\0".join((cdef, TWINS, cffi.__version__, sys.version))
    return "_herdr_ghostty_" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _generate(cdef: str, name: str, target: Path) -> None:
    """Write the out-of-line module atomically (a racing process writes the same bytes)."""
    from cffi import FFI

    builder = FFI()
    builder.cdef(cdef)
    builder.cdef(TWINS)
    builder.set_source(name, None)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{name}.", suffix=".tmp")
    os.close(fd)
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # cffi says "generating …"
            builder.emit_python_code(tmp)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _load_module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ffi


def _check_twins(ffi: Any) -> None:
    for twin, real in TWIN_OF.items():
        if (ffi.sizeof(twin), ffi.alignof(twin)) != (ffi.sizeof(real), ffi.alignof(real)):
            raise ImportError(f"{twin} does not match {real}")


def out_of_line(env: Mapping[str, str]) -> tuple[Any, Any]:
    """``(ffi, lib)`` from the cached out-of-line module, generating it if needed."""
    package = _package_dir()
    cdef = _header(package)
    name = module_name(cdef)
    path = cache_dir(env) / f"{name}.py"
    if not path.exists():
        _generate(cdef, name, path)
    try:
        ffi = _load_module(name, path)
    except Exception:  # a damaged cache file: write it again, once
        _generate(cdef, name, path)
        ffi = _load_module(name, path)
    _check_twins(ffi)
    return ffi, ffi.dlopen(library_path(package, env))


def in_line() -> tuple[Any, Any]:
    """pyghostty's own handle, plus our twin (the slow path, always available)."""
    from pyghostty._ffi import ffi, lib

    with contextlib.suppress(Exception):  # already declared if loaded twice
        ffi.cdef(
            "typedef struct { GhosttyTerminalScrollViewportTag tag;"
            " struct { intptr_t delta; uint64_t _pad; } value; } HerdrScrollViewportS;"
        )
    _check_twins(ffi)
    return ffi, lib


def function_as(ffi: Any, lib: Any, name: str, signature: str) -> Any:
    """Library function ``name`` called through ``signature`` (a twin-typed one)."""
    return ffi.cast(signature, ffi.addressof(lib, name))


def load(env: Mapping[str, str] | None = None) -> tuple[Any, Any, str]:
    """``(ffi, lib, how)``: the fast handle when it works, else pyghostty's."""
    try:
        ffi, lib = out_of_line(os.environ if env is None else env)
        return ffi, lib, "out-of-line"
    except Exception:  # a read-only cache, an unexpected pyghostty layout, ...
        ffi, lib = in_line()
        return ffi, lib, "in-line"
