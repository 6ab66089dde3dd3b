"""The method table: envelope checks, param validation, one answer per request.

Every request line produces exactly one response line (or, for held methods, a stream
the handler writes itself). Params are validated against the API schema before a
handler runs, so invalid input never changes anything.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from herdr.api import protocol
from herdr.api.limits import MAX_PARAMS_DEPTH, nesting_depth
from herdr.api.schema import method_params_refs, request_defs
from herdr.api.validate import ParamsValidator, json_type
from herdr.server import short_ids
from herdr.server.core import ApiError, Result, encode
from herdr.server.transport import Connection
from herdr.server.wiring import Call, Server
from herdr.vocab import HerdrError

log = logging.getLogger("herdr.server.dispatch")

Handler = Callable[[Call], "Result | Awaitable[Result | None] | None"]
Precheck = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Method:
    """A handler; ``precheck`` may raise a more specific :class:`ApiError` than the schema."""

    handler: Handler
    precheck: Precheck | None = None


def _error_line(request_id: str, code: str, message: str) -> bytes:
    return encode(protocol.failure(request_id, code, message))


class Dispatcher:
    """Turns one request line into one response line."""

    def __init__(self, server: Server, table: Mapping[str, Method]) -> None:
        self._server = server
        self._table = dict(table)
        self._validate = ParamsValidator(request_defs(), method_params_refs())
        self._known = frozenset(protocol.METHODS)

    def methods(self) -> list[str]:
        return sorted(self._table)

    async def handle_line(self, line: bytes, conn: Connection) -> bytes | None:
        try:
            request = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            return _error_line("", protocol.INVALID_REQUEST, f"invalid request: {exc}")
        if not isinstance(request, dict):
            return _error_line(
                "", protocol.INVALID_REQUEST, "invalid request: expected a JSON object"
            )
        request_id = request.get("id")
        if not isinstance(request_id, str):
            what = "missing" if request_id is None else f"a {json_type(request_id)}"
            return _error_line(
                "", protocol.INVALID_REQUEST, f"invalid request: id must be a string, got {what}"
            )
        return await self._handle(request_id, request, conn)

    async def _handle(
        self, request_id: str, request: dict[str, Any], conn: Connection
    ) -> bytes | None:
        method_name = request.get("method")
        if not isinstance(method_name, str):
            return _error_line(request_id, protocol.INVALID_REQUEST, "method must be a string")
        method = self._table.get(method_name)
        if method is None:
            if method_name in self._known:
                message = f"method {method_name} is not supported by this server yet"
            else:  # cut short: a megabyte method name is not echoed back whole
                shown = method_name if len(method_name) <= 80 else method_name[:77] + "..."
                message = f"unknown method {shown!r}"
            return _error_line(request_id, protocol.INVALID_REQUEST, message)
        if "params" not in request:
            return _error_line(request_id, protocol.INVALID_REQUEST, "params is required")
        params = request["params"]
        if not isinstance(params, dict):  # does not deserialize, as in herdr
            return _error_line(
                request_id,
                protocol.INVALID_REQUEST,
                f"params: expected object, got {json_type(params)}",
            )
        try:
            if method.precheck is not None:
                method.precheck(params)
            if nesting_depth(params) > MAX_PARAMS_DEPTH:  # before any recursive walk
                raise ApiError(
                    protocol.INVALID_PARAMS, f"params: nested deeper than {MAX_PARAMS_DEPTH} levels"
                )
            problem = self._validate(method_name, params)
            if problem is not None:
                code = protocol.INVALID_REQUEST if problem.malformed else protocol.INVALID_PARAMS
                raise ApiError(code, str(problem))
            if short_ids.needs_caller(params):  # p2 / t2 as shown on screen
                sock = conn.transport.get_extra_info("socket") if conn.transport else None
                params = short_ids.resolve_for_caller(self._server.panes, params, sock)
            call = Call(request_id, method_name, params, self._server, conn)
            outcome = method.handler(call)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        # Every failure with a code of its own is a HerdrError: its envelope, here only.
        except HerdrError as exc:
            if log.isEnabledFor(logging.DEBUG):
                log.debug("%s failed: %s", method_name, exc, extra={"request_id": request_id})
            return _error_line(request_id, exc.code, exc.message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("handler for %s failed", method_name)
            return _error_line(request_id, protocol.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        if outcome is None:
            return None  # a held method wrote its own lines
        try:
            response = encode(protocol.success(request_id, outcome))
        except (TypeError, orjson.JSONEncodeError) as exc:
            log.exception("result of %s is not encodable", method_name)
            return _error_line(request_id, protocol.INTERNAL_ERROR, f"unencodable result: {exc}")
        if call.after_response:
            conn.write(response)
            await conn.drain()
            for hook in call.after_response:
                hook()
            return None
        return response
