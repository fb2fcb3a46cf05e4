"""JSON-RPC 2.0 over newline-delimited JSON, ACP's stdio framing, in both directions.

One JSON object per line. Requests from the client run as tasks (so a long
`session/prompt` never blocks `session/cancel` or a permission answer), and
their handlers may call the client back (`request`) and notify it
(`notify`). Everything written goes through one ordered queue: a
notification posted before a response is on the wire before it, which ACP
relies on (all `session/update`s of a turn precede the `session/prompt`
answer).

Bad input is answered, never fatal. Each line goes through the JSON guard
both front ends share (`cairn.frontends.json_guard`): a line that is not
UTF-8 JSON, holds NaN or Infinity, or nests deeper than `MAX_JSON_DEPTH` gets
a Parse error (-32700, id null); a line longer than `max_bytes` (the
`max_message_bytes` setting, 64 MiB by default, as in the language server)
is skipped unread and answered Invalid Request (-32600) naming its size and
the limit. A JSON value that is not a request, notification or response gets
Invalid Request (a batch array too: ACP has none), an unknown request method
gets Method not found (-32601); unknown notifications are ignored.
`$/cancel_request` cancels a running request (answered -32800 unless its
handler still produces a result). A call to the client that is abandoned
(its task cancelled) is announced with `$/cancel_request` only when
`cancels_requests` is set: the server sets it from the client's
`initialize` (`ClientCapabilities.current_schema`), since clients of older
schemas (the Python SDK's v1.19) fail on the notification. An exception a handler does not expect is
logged with its traceback and answered Internal error (-32603).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from cairn.frontends.codes import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    REQUEST_CANCELLED,
)
from cairn.frontends.faults import RpcError
from cairn.frontends.json_guard import Refusal, parse_json, too_large

logger = logging.getLogger(__name__)

CANCEL_REQUEST = "$/cancel_request"
JSONRPC_VERSION = "2.0"

Handler = Callable[[Any], Awaitable[Any]]
RequestId = int | str


def _is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def message_kind(message: object) -> str:
    """'request', 'notification', 'response' or 'invalid' for one decoded JSON value."""
    if not isinstance(message, dict) or message.get("jsonrpc") != JSONRPC_VERSION:
        return "invalid"
    method = message.get("method")
    if isinstance(method, str):
        if "id" not in message:
            return "notification"
        return "request" if _is_id(message["id"]) else "invalid"
    if "method" not in message and _is_id(message.get("id")):
        return "response" if "result" in message or "error" in message else "invalid"
    return "invalid"


class Connection:
    """One client connection: serves `requests` / `notifications` until the input ends."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        requests: Mapping[str, Handler],
        notifications: Mapping[str, Handler],
        max_bytes: int,
    ) -> None:
        self._reader = reader
        self._max_bytes = max_bytes
        self._writer = writer
        self._requests = requests
        self._notifications = notifications
        self._outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._running: dict[RequestId, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._pending: dict[RequestId, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self.closed = False
        # Whether the client takes `$/cancel_request` (set after `initialize`).
        self.cancels_requests = False

    # -- sending ---------------------------------------------------------------
    def post(self, message: dict[str, Any]) -> None:
        """Queue one message for the wire, after everything queued before it."""
        if self.closed:
            return
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._outbox.put_nowait(line.encode("utf-8"))

    def notify(self, method: str, params: Any) -> None:
        self.post({"jsonrpc": JSONRPC_VERSION, "method": method, "params": params})

    async def request(self, method: str, params: Any) -> Any:
        """Call the client; its error answer raises `RpcError`. Cancelling asks it to stop."""
        if self.closed:
            raise RpcError(INTERNAL_ERROR, f"{method}: the client connection is closed")
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.post(
            {"jsonrpc": JSONRPC_VERSION, "id": request_id, "method": method, "params": params}
        )
        try:
            return await future
        except asyncio.CancelledError:
            if self.cancels_requests:
                self.notify(CANCEL_REQUEST, {"requestId": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    def _respond(self, request_id: RequestId | None, result: Any) -> None:
        self.post({"jsonrpc": JSONRPC_VERSION, "id": request_id, "result": result})

    def _fail(self, request_id: RequestId | None, error: RpcError) -> None:
        self.post({"jsonrpc": JSONRPC_VERSION, "id": request_id, "error": error.wire()})

    async def _write_loop(self) -> None:
        while (data := await self._outbox.get()) is not None:
            self._writer.write(data)
            await self._writer.drain()

    # -- receiving ---------------------------------------------------------------
    async def _read_line(self) -> bytes | None:
        """The next line; None at the end of input; b"" after skipping an over-long one."""
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as end:
            return end.partial or None
        except asyncio.LimitOverrunError as over:
            size = await self._skip_line(over.consumed)
            self._refuse(too_large(size, self._max_bytes))
            return b""

    async def _skip_line(self, consumed: int) -> int:
        """Drop the rest of an over-long line; its length in bytes (without the newline)."""
        size = 0
        while True:
            try:
                size += len(await self._reader.readuntil(b"\n")) - 1
                return size
            except asyncio.LimitOverrunError as more:
                consumed = more.consumed
            except asyncio.IncompleteReadError as end:
                return size + len(end.partial)
            await self._reader.readexactly(consumed)
            size += consumed

    def _refuse(self, refusal: Refusal) -> None:
        self._fail(refusal.msg_id, RpcError(refusal.code, refusal.message))

    def _receive(self, line: bytes) -> None:
        if not line.strip():
            return
        value = parse_json(line.rstrip(b"\r\n"))
        if isinstance(value, Refusal):
            self._refuse(value)
            return
        message: Any = value  # its shape is `message_kind`'s to check
        kind = message_kind(message)
        if kind == "request":
            self._start(message)
        elif kind == "notification":
            self._spawn(self._notification(message))
        elif kind == "response":
            self._settle(message)
        else:
            self._invalid(message)

    def _invalid(self, message: object) -> None:
        reason = (
            "JSON-RPC batches are not supported"
            if isinstance(message, list)
            else 'not a JSON-RPC 2.0 request, notification or response (needs "jsonrpc": "2.0", '
            'a string "method" and a string or integer "id")'
        )
        request_id = message.get("id") if isinstance(message, dict) else None
        self._fail(request_id if _is_id(request_id) else None, RpcError(INVALID_REQUEST, reason))

    def _spawn(self, work: Awaitable[None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _start(self, message: dict[str, Any]) -> None:
        request_id: RequestId = message["id"]
        task = self._spawn(self._run(request_id, message["method"], message.get("params")))
        self._running[request_id] = task
        task.add_done_callback(lambda _t: self._running.pop(request_id, None))

    async def _run(self, request_id: RequestId, method: str, params: Any) -> None:
        handler = self._requests.get(method)
        if handler is None:
            self._fail(request_id, RpcError(METHOD_NOT_FOUND, f"Method not found: {method}"))
            return
        try:
            result = await handler(params)
        except RpcError as error:
            self._fail(request_id, error)
        except asyncio.CancelledError:
            self._fail(request_id, RpcError(REQUEST_CANCELLED, f"{method}: request cancelled"))
        except Exception as error:
            logger.exception("%s failed", method)
            message = f"{method}: internal error: {type(error).__name__}: {error}"
            self._fail(request_id, RpcError(INTERNAL_ERROR, message))
        else:
            self._respond(request_id, result)

    async def _notification(self, message: dict[str, Any]) -> None:
        method = message["method"]
        params = message.get("params")
        if method == CANCEL_REQUEST:
            target = params.get("requestId") if isinstance(params, dict) else None
            task = self._running.get(target) if isinstance(target, int | str) else None
            if task is not None:
                task.cancel()
            return
        handler = self._notifications.get(method)
        if handler is None:
            logger.debug("ignoring notification %s", method)
            return
        try:
            await handler(params)
        except Exception:
            logger.exception("notification %s failed", method)

    def _settle(self, message: dict[str, Any]) -> None:
        future = self._pending.get(message["id"])
        if future is None or future.done():
            logger.debug("response to an unknown request %r", message["id"])
            return
        error = message.get("error")
        if error is not None:
            code = error.get("code", INTERNAL_ERROR) if isinstance(error, dict) else INTERNAL_ERROR
            text = error.get("message", "error") if isinstance(error, dict) else str(error)
            data = error.get("data") if isinstance(error, dict) else None
            future.set_exception(RpcError(int(code), str(text), data))
        else:
            future.set_result(message.get("result"))

    # -- lifecycle ---------------------------------------------------------------
    async def serve(self) -> None:
        """Read and dispatch until the client closes its end; then stop everything."""
        writing = asyncio.ensure_future(self._write_loop())
        try:
            while (line := await self._read_line()) is not None:
                self._receive(line)
        finally:
            await self._shutdown(writing)

    async def _shutdown(self, writing: asyncio.Task[None]) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(RpcError(INTERNAL_ERROR, "the client connection closed"))
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._outbox.put_nowait(None)
        with contextlib.suppress(Exception):
            await writing
        self.closed = True
