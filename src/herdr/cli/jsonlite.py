"""``json.loads``/``json.dumps`` for the CLI without importing :mod:`json`.

The :mod:`json` package imports :mod:`re` (and with it enum, functools, ...) at import
time for its pure-Python fallbacks, which costs every CLI call several milliseconds.
The C accelerator ``_json`` that :mod:`json` itself uses needs none of that; this
module drives it directly (output byte-for-byte what ``json.dumps`` writes) and falls
back to :mod:`json` where ``_json`` is unavailable. Decoding errors are ``ValueError``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_INF = float("inf")
_CONSTANTS = {"NaN": float("nan"), "Infinity": _INF, "-Infinity": -_INF}
_WHITESPACE = " \t\n\r"


class _DecoderContext:
    """The attributes ``_json.make_scanner`` reads (as on a default ``JSONDecoder``)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_CONSTANTS.__getitem__)


def _default(obj: object) -> object:
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def _c_dumps(item_separator: str, key_separator: str) -> Callable[[object], str]:
    # the arguments json.JSONEncoder.iterencode passes (ensure_ascii=False, one shot)
    encode = _json.make_encoder(
        {}, _default, _json.encode_basestring, None, key_separator, item_separator,
        False, False, True,
    )  # fmt: skip

    def dumps(obj: object) -> str:
        return "".join(encode(obj, 0))

    return dumps


def _c_loads(data: str | bytes) -> Any:
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise ValueError("Expecting value") from None
    if text[end:].strip(_WHITESPACE):
        raise ValueError("Extra data")
    return value


try:
    import _json

    _scan = _json.make_scanner(_DecoderContext())  # type: ignore[arg-type]
    dumps_compact = _c_dumps(",", ":")
    dumps = _c_dumps(", ", ": ")
    loads = _c_loads
except (ImportError, TypeError):  # pragma: no cover - not CPython, or a changed _json
    import json as _json_module

    def dumps_compact(obj: object) -> str:
        return _json_module.dumps(obj, ensure_ascii=False, separators=(",", ":"))

    def dumps(obj: object) -> str:
        return _json_module.dumps(obj, ensure_ascii=False)

    def loads(data: str | bytes) -> Any:
        return _json_module.loads(data)
