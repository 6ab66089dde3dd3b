"""The method table: envelope checks, param validation, one answer per request.

Every request line produces exactly one response line (or, for held methods, a stream
the handler writes itself). Params are validated against the API schema before a
handler runs, so invalid input never changes anything.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import socket
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from herdr.api import protocol
from herdr.api.limits import MAX_PARAMS_DEPTH, nesting_depth
from herdr.api.schema import method_params_refs, request_defs
from herdr.api.validate import ParamsValidator, json_type
from herdr.server import short_ids
from herdr.server.core import ApiError, Result, encode
from herdr.server.transport import Connection, peer_connection
from herdr.server.wiring import Call, Server
from herdr.vocab import HerdrError

log = logging.getLogger("herdr.server.dispatch")

Handler = Callable[[Call], "Result | Awaitable[Result | None] | None"]
Precheck = Callable[[dict[str, Any]], None]


# Methods whose handler answers at once and uses nothing of the connection but the
# peer's socket (for its pid): a one-shot request for one of them that is already read
# when it is accepted is answered there (Dispatcher.handle_now, Listener), no loop turn
# later. Held methods, awaiting handlers and after-response hooks never are.
IMMEDIATE: Final = frozenset(
    {
        "ping",
        "session.snapshot",
        "workspace.list",
        "workspace.get",
        "tab.list",
        "tab.get",
        "pane.list",
        "pane.get",
        "pane.current",
        "pane.read",
        "pane.send_text",
        "pane.send_keys",
        "pane.send_input",
        "pane.process_info",
        "pane.neighbor",
        "pane.edges",
        "layout.export",
        "agent.list",
        "agent.get",
        "agent.read",
        "agent.explain",
        "pane.report_agent",
        "pane.report_agent_session",
        "pane.release_agent",
        "pane.report_metadata",
        "workspace.report_metadata",
    }
)


@dataclass(frozen=True)
class _Pending:
    """A handler's awaitable outcome, still to be awaited."""

    call: Call
    outcome: Awaitable[Result | None]


@dataclass(frozen=True)
class _Respond:
    """A response to flush before the call's ``after_response`` hooks run."""

    call: Call
    line: bytes


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

    def handle_now(self, line: bytes, sock: socket.socket) -> bytes | None:
        """The answer to a one-shot request whose method answers at once (one of
        :data:`IMMEDIATE`), computed where it was read — the listener's accept callback
        — so it costs no loop turn; ``None``, having done nothing: serve it as usual
        (another method, or a line the usual path should judge)."""
        try:
            request = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(request, dict):
            return None
        method = request.get("method")
        if not isinstance(method, str) or method not in IMMEDIATE:
            return None
        request_id = request.get("id")
        if not isinstance(request_id, str):
            return None
        step = self._begin(request_id, request, peer_connection(sock))
        if not isinstance(step, bytes):
            # IMMEDIATE holds only handlers that answer at once and run nothing after
            # the response: anything else is a mistake in that list, answered as one
            log.error("%s did not answer at once", method)
            if isinstance(step, _Pending) and inspect.iscoroutine(step.outcome):
                step.outcome.close()
            return _error_line(request_id, protocol.INTERNAL_ERROR, "not an immediate method")
        return step

    async def _handle(
        self, request_id: str, request: dict[str, Any], conn: Connection
    ) -> bytes | None:
        step = self._begin(request_id, request, conn)
        if isinstance(step, _Pending):
            try:
                outcome = await step.outcome
            except HerdrError as exc:
                return self._failed(request_id, step.call.method, exc)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                return self._crashed(request_id, step.call.method, exc)
            step = self._answer(step.call, outcome)
        if isinstance(step, _Respond):
            call = step.call
            conn.write(step.line)
            await conn.drain()
            for hook in call.after_response:
                hook()
            return None
        return step

    def _failed(self, request_id: str, method_name: str, exc: HerdrError) -> bytes:
        # Every failure with a code of its own is a HerdrError: its envelope, here only.
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s failed: %s", method_name, exc, extra={"request_id": request_id})
        return _error_line(request_id, exc.code, exc.message)

    def _crashed(self, request_id: str, method_name: str, exc: Exception) -> bytes:
        log.exception("handler for %s failed", method_name)
        return _error_line(request_id, protocol.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")

    def _begin(
        self, request_id: str, request: dict[str, Any], conn: Connection
    ) -> bytes | _Pending | _Respond | None:
        """Everything up to the handler's answer: the answer line (or an error line),
        ``None`` for a held method, or what is left to do (an awaitable outcome, a
        response to flush before the ``after_response`` hooks)."""
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
        except HerdrError as exc:
            return self._failed(request_id, method_name, exc)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return self._crashed(request_id, method_name, exc)
        if inspect.isawaitable(outcome):
            return _Pending(call, outcome)
        return self._answer(call, outcome)

    def _answer(self, call: Call, outcome: Result | None) -> bytes | _Respond | None:
        request_id, method_name = call.id, call.method
        if outcome is None:
            return None  # a held method wrote its own lines
        try:
            response = encode(protocol.success(request_id, outcome))
        except (TypeError, orjson.JSONEncodeError) as exc:
            log.exception("result of %s is not encodable", method_name)
            return _error_line(request_id, protocol.INTERNAL_ERROR, f"unencodable result: {exc}")
        if call.after_response:
            return _Respond(call, response)
        return response
