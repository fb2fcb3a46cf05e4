"""The JSON-RPC protocol class: pygls' `LanguageServerProtocol` with Cairn's fixes.

- `cairn/*` and unknown methods keep their params as the raw JSON value (pygls
  would turn them into namedtuples that silently rename odd keys, and would
  never answer a request sent without `params`). Handlers validate the dict
  with pydantic; unknown methods get -32601.
- A request whose params do not match the LSP types is answered with -32602
  naming the problem (pygls would log it and never answer).
- Positions are always UTF-16: the `Workspace` counts UTF-16 code units, so a
  client offering UTF-8 first (Neovim) is not taken up on it.
- pygls' own document store is skipped for didOpen/didChange/didClose: the
  engine's `Workspace` is the one store (keeping two would double the cost of
  every keystroke).
- `$/cancelRequest` for a running turn cancels the engine's turn so that the
  request is answered with finishReason "cancelled".
- didChange handling time is recorded for the debug request and the bench.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import attrs
import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import MsgId, RPCMessage

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer

logger = logging.getLogger(__name__)

CUSTOM_PREFIX = "cairn/"
# How many didChange handling times are kept for the debug request.
TIMING_WINDOW = 10_000


@attrs.define
class RawRequest:
    """A request whose params are kept as plain JSON (a dict, a list or None)."""

    id: MsgId
    method: str
    jsonrpc: str
    params: Any = None


@attrs.define
class RawNotification:
    """A notification whose params are kept as plain JSON."""

    method: str
    jsonrpc: str
    params: Any = None


@attrs.define
class AnsweredMessage:
    """A message already answered (with an error) while it was being decoded."""

    jsonrpc: str = "answered"


def keeps_raw_params(method: object) -> bool:
    """True for methods whose params must not go through lsprotocol/namedtuple decoding."""
    if not isinstance(method, str):
        return False
    return method.startswith(CUSTOM_PREFIX) or method not in types.METHOD_TO_TYPES


def describe_structure_error(exc: BaseException) -> str:
    """One line naming the fields that failed to decode (cattrs' messages, joined)."""
    cause = exc.__cause__
    if isinstance(cause, cattrs.BaseValidationError):
        return "; ".join(cattrs.transform_error(cause))
    return str(cause or exc)


class CairnProtocol(LanguageServerProtocol):
    """LanguageServerProtocol with raw custom params and answered decode errors."""

    _server: CairnServer  # pyright: ignore[reportIncompatibleVariableOverride]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Wall-clock and CPU (this thread) seconds per didChange: decode + handler.
        self.did_change_times: deque[float] = deque(maxlen=TIMING_WINDOW)
        self.did_change_cpu_times: deque[float] = deque(maxlen=TIMING_WINDOW)
        self._decode_seconds = 0.0
        self._decode_cpu_seconds = 0.0

    # -- decoding ------------------------------------------------------------
    def structure_message(self, data: dict[str, Any]) -> Any:
        if "jsonrpc" not in data:
            return data
        method = data.get("method")
        if isinstance(method, str) and keeps_raw_params(method):
            if "id" in data:
                return RawRequest(
                    id=data["id"], method=method, jsonrpc=data["jsonrpc"], params=data.get("params")
                )
            return RawNotification(
                method=method, jsonrpc=data["jsonrpc"], params=data.get("params")
            )
        started, started_cpu = time.perf_counter(), time.thread_time()
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            msg_id = data.get("id")
            if "method" not in data or not isinstance(msg_id, int | str):
                raise
            problem = f"{method}: {describe_structure_error(exc)}"
            logger.warning("invalid params for request %r: %s", msg_id, problem)
            self._send_response(msg_id, error=JsonRpcInvalidParams(problem).to_response_error())
            return AnsweredMessage()
        finally:
            self._decode_seconds = time.perf_counter() - started
            self._decode_cpu_seconds = time.thread_time() - started_cpu

    def handle_message(self, message: RPCMessage) -> None:
        if isinstance(message, AnsweredMessage):
            return
        if getattr(message, "method", None) != types.TEXT_DOCUMENT_DID_CHANGE:
            super().handle_message(message)
            return
        started, started_cpu = time.perf_counter(), time.thread_time()
        super().handle_message(message)
        self.did_change_times.append(time.perf_counter() - started + self._decode_seconds)
        self.did_change_cpu_times.append(
            time.thread_time() - started_cpu + self._decode_cpu_seconds
        )

    # -- initialize ----------------------------------------------------------
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            general.position_encodings = [types.PositionEncodingKind.Utf16]
        return (yield from super().lsp_initialize(params))

    # -- documents: only the user handlers, no second document store ----------
    def _user_handler(self, method: str, params: Any) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)

    # -- cancellation ----------------------------------------------------------
    def _handle_cancel_notification(self, msg_id: MsgId) -> None:
        if self._server.turns.cancel_request(msg_id):
            return
        super()._handle_cancel_notification(msg_id)
