"""``no_gc`` pauses the collector for start-up imports, freezes what they made and
leaves the collector as it found it."""

from __future__ import annotations

import contextlib
import gc

import pytest

from herdr.cli.quiet_gc import no_gc


@pytest.mark.parametrize("enabled", [True, False], ids=["was-on", "was-off"])
@pytest.mark.parametrize("fails", [False, True], ids=["block-ok", "block-raises"])
def test_no_gc_pauses_freezes_and_restores(enabled: bool, fails: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        inside = None
        made: list[object] = []
        with contextlib.suppress(RuntimeError) if fails else contextlib.nullcontext(), no_gc():
            inside = gc.isenabled()
            made.append([made])  # a cycle made during the block
            if fails:
                raise RuntimeError("boom")
        assert inside is False
        assert gc.isenabled() is enabled
        assert gc.get_freeze_count() > 0
        assert not any(obj is made for obj in gc.get_objects())  # frozen: out of gc's sight
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()
