"""A module imported on its first attribute access (then it replaces itself).

The client's first frame is drawn before asyncio is imported (~50 ms of CPU), but the
app's methods name ``asyncio`` as a module global; this stand-in imports it when one of
them first runs and puts the real module in that global, so later uses cost nothing.
"""

from __future__ import annotations

from typing import Any


class _LazyModule:
    def __init__(self, name: str, namespace: dict[str, Any]) -> None:
        self._name = name
        self._namespace = namespace

    def __getattr__(self, attr: str) -> Any:
        import importlib

        module = importlib.import_module(self._name)
        self._namespace[self._name] = module
        return getattr(module, attr)


def lazy_module(name: str, namespace: dict[str, Any]) -> Any:
    """A stand-in for the top-level module ``name`` bound in ``namespace``."""
    return _LazyModule(name, namespace)
