"""The JSON-RPC protocol class: pygls' `LanguageServerProtocol` with Cairn's fixes.

Messages arrive from Cairn's own reader (`transport.py`), already checked
(`envelope.py`); pygls decodes and dispatches them. Every pygls method this
class overrides or calls is pinned by `tests/lsp/test_pygls_contract.py`.
- The lifecycle rules (`lifecycle.py`) are applied before dispatch: -32002
  before `initialize`, -32600 after `shutdown`, a second `initialize` refused.
- `cairn/*` and unknown methods keep their params as the raw JSON value (pygls
  would turn them into namedtuples that silently rename odd keys, and would
  never answer a request sent without `params`). Handlers validate the dict
  with pydantic; unknown methods get -32601.
- A request whose params do not match the LSP types is answered with -32602
  naming the problem (pygls would log it and never answer); such a
  notification is dropped with one log line.
- Positions are always UTF-16: the `Workspace` counts UTF-16 code units, so a
  client offering UTF-8 first (Neovim) is not taken up on it.
- pygls' own document store is skipped for didOpen/didChange/didClose: the
  engine's `Workspace` is the one store (keeping two would double the cost of
  every keystroke).
- `$/cancelRequest` for a running turn cancels the engine's turn so that the
  request is answered with finishReason "cancelled" (other cancellations go to
  pygls).
- Errors the server answers by itself (refused messages, invalid params) are
  written through the connection's `FramedWriter` (`send_error`).
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

from cairn.lsp.envelope import error_response
from cairn.lsp.lifecycle import Phase, Verdict, judge

if TYPE_CHECKING:
    from cattrs import Converter

    from cairn.lsp.server import CairnServer
    from cairn.lsp.transport import FramedWriter

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
    """LanguageServerProtocol with raw custom params, lifecycle rules and answered errors."""

    def __init__(self, server: CairnServer, converter: Converter) -> None:
        super().__init__(server, converter)
        self.cairn = server
        self.phase = Phase.WAITING
        self.connection: FramedWriter | None = None
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
            if not isinstance(method, str):
                raise  # a response the client sent back that does not decode
            problem = f"{method}: {describe_structure_error(exc)}"
            msg_id = data.get("id")
            if msg_id is None:
                logger.warning("invalid params, notification dropped: %s", problem)
            else:
                logger.warning("invalid params for request %r: %s", msg_id, problem)
                self.send_error(msg_id, JsonRpcInvalidParams.CODE, problem)
            return AnsweredMessage()
        finally:
            self._decode_seconds = time.perf_counter() - started
            self._decode_cpu_seconds = time.thread_time() - started_cpu

    # -- writing -----------------------------------------------------------------
    def connect(self, connection: FramedWriter) -> None:
        """Write through `connection`, which frames each body (pygls writes bare bodies)."""
        self.connection = connection
        self.set_writer(connection, include_headers=False)

    def send_error(self, msg_id: MsgId | None, code: int, message: str) -> None:
        """Answer request `msg_id` (None: a message whose id could not be read) with an error."""
        if self.connection is None:
            logger.error("no connection to answer %r with: %s", msg_id, message)
            return
        self.connection.write(error_response(msg_id, code, message))

    # -- dispatch ----------------------------------------------------------------
    def receive(self, data: dict[str, Any]) -> None:
        """Handle one checked message object (the transport's entry point)."""
        method = data.get("method")
        verdict: Verdict | None = None
        if isinstance(method, str):
            verdict = judge(self.phase, method, is_request="id" in data)
            if not verdict.accepted:
                self._refuse(data.get("id"), verdict)
                return
        message = self.structure_message(data)
        if isinstance(message, AnsweredMessage):
            return
        if verdict is not None:
            self.phase = verdict.phase
        self.handle_message(message)

    def handle_message(self, message: RPCMessage) -> None:
        method = getattr(message, "method", None)
        if method == types.CANCEL_REQUEST and self._cancel_turn(message):
            return
        if method == types.TEXT_DOCUMENT_DID_CHANGE:
            self._timed_did_change(message)
            return
        super().handle_message(message)

    def _refuse(self, msg_id: MsgId | None, verdict: Verdict) -> None:
        assert verdict.code is not None and verdict.refusal is not None
        if msg_id is None:
            logger.warning("notification dropped: %s", verdict.refusal)
            return
        logger.warning("request %r refused: %s", msg_id, verdict.refusal)
        self.send_error(msg_id, verdict.code, verdict.refusal)

    def _cancel_turn(self, message: RPCMessage) -> bool:
        """True when the cancelled request is a running turn (now being cancelled)."""
        params = getattr(message, "params", None)
        msg_id = getattr(params, "id", None)
        return msg_id is not None and self.cairn.turns.cancel_request(msg_id)

    def _timed_did_change(self, message: RPCMessage) -> None:
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
