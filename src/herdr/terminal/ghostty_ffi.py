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

That module is code the server executes, so it is run only from bytes read through a
descriptor whose file, and every directory from ``herdr/`` down to it, is ours alone
(:mod:`herdr.terminal.owned_cache`). Anything else is not executed: we warn, naming
the path, owner and mode, and generate a private copy for this process instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import logging
import os
import sys
import tempfile
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from herdr.terminal import owned_cache

_log = logging.getLogger(__name__)

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


CACHE_PARTS = ("herdr", "ffi")


def cache_base(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or "~", ".cache")
    return Path(os.path.expanduser(base))


def cache_dir(env: Mapping[str, str]) -> Path:
    return cache_base(env).joinpath(*CACHE_PARTS)


def module_name(cdef: str) -> str:
    import cffi

    key = "\0".join((cdef, TWINS, cffi.__version__, sys.version))
    return "_herdr_ghostty_" + hashlib.sha256(key.encode()).hexdigest()[:16]


def generate_source(cdef: str, name: str) -> bytes:
    """The out-of-line module's source, emitted into a private (0700) temp dir."""
    from cffi import FFI

    builder = FFI()
    builder.cdef(cdef)
    builder.cdef(TWINS)
    builder.set_source(name, None)
    with tempfile.TemporaryDirectory(prefix="herdr-ffi-") as private:
        target = os.path.join(private, f"{name}.py")
        with contextlib.redirect_stdout(io.StringIO()):  # cffi says "generating …"
            builder.emit_python_code(target)
        with open(target, "rb") as stream:
            return stream.read()


def _exec_module(name: str, source: bytes, origin: str) -> Any:
    """Run the module from the bytes we checked (no path is opened again, no .pyc)."""
    module = types.ModuleType(name)
    module.__file__ = origin
    exec(compile(source, origin, "exec", dont_inherit=True), module.__dict__)
    return module.ffi


def _private_ffi(cdef: str, name: str) -> Any:
    return _exec_module(name, generate_source(cdef, name), f"<private {name}>")


def _cached_ffi(cdef: str, name: str, env: Mapping[str, str]) -> Any:
    """The module from the cache when it is ours alone, else a fresh private copy."""
    filename = f"{name}.py"
    path = cache_dir(env) / filename
    try:
        dir_fd = owned_cache.open_private_dir(cache_base(env), CACHE_PARTS)
    except owned_cache.Untrusted as exc:
        _log.warning("not using the FFI cache directory %s; using a private copy", exc)
        return _private_ffi(cdef, name)
    except OSError as exc:  # a read-only home, a file in the way: nothing to fear
        _log.info("FFI cache unavailable (%s); using a private copy", exc)
        return _private_ffi(cdef, name)
    try:
        try:
            source = owned_cache.read_private_file(dir_fd, filename, path)
        except owned_cache.Untrusted as exc:
            _log.warning("refusing to execute the FFI cache file %s; replacing it", exc)
            source = None
        if source is not None:
            try:
                return _exec_module(name, source, str(path))
            except Exception:  # a damaged cache file (ours): write it again
                _log.info("FFI cache file %s is damaged; writing it again", path)
        source = generate_source(cdef, name)
        with contextlib.suppress(OSError):  # still usable from memory if the write fails
            owned_cache.install_file(dir_fd, filename, source)
        return _exec_module(name, source, str(path))
    finally:
        os.close(dir_fd)


def _check_twins(ffi: Any) -> None:
    for twin, real in TWIN_OF.items():
        if (ffi.sizeof(twin), ffi.alignof(twin)) != (ffi.sizeof(real), ffi.alignof(real)):
            raise ImportError(f"{twin} does not match {real}")


def out_of_line(env: Mapping[str, str]) -> tuple[Any, Any]:
    """``(ffi, lib)`` from the cached out-of-line module, generating it if needed."""
    package = _package_dir()
    cdef = _header(package)
    ffi = _cached_ffi(cdef, module_name(cdef), env)
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
