"""``no_gc`` pauses the collector for start-up imports and leaves it as it found it."""

from __future__ import annotations

import contextlib
import gc

import pytest

from herdr.cli.quiet_gc import no_gc


@pytest.mark.parametrize("enabled", [True, False], ids=["was-on", "was-off"])
@pytest.mark.parametrize("fails", [False, True], ids=["block-ok", "block-raises"])
def test_no_gc_pauses_and_restores(enabled: bool, fails: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        inside = None
        with contextlib.suppress(RuntimeError) if fails else contextlib.nullcontext(), no_gc():
            inside = gc.isenabled()
            if fails:
                raise RuntimeError("boom")
        assert inside is False
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
