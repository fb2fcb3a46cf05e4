"""The Cairn language server: a pygls `LanguageServer` holding the engine and the bridges.

State lives here; each LSP feature is a module of this package, registered by
`features.py` and imported on first use, so that answering `initialize` needs
nothing but pygls (pydantic and the core load right after). Errors a handler does not expect are logged with their traceback
and answered as JSON-RPC errors; nothing is shown as a popup except what the
user must act on (invalid settings, approvals).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import FeatureRequestError, JsonRpcException
from pygls.lsp.server import LanguageServer

from cairn import __version__
from cairn.lsp.editing import EditorBridge
from cairn.lsp.engine_host import EngineHost, default_engine
from cairn.lsp.listener import LspListener
from cairn.lsp.protocol import CairnProtocol
from cairn.lsp.turn_registry import TurnRegistry

if TYPE_CHECKING:
    from pygls.server import ServerErrors

    from cairn.agent.api import EngineApi
    from cairn.settings import Settings

logger = logging.getLogger(__name__)

SERVER_NAME = "cairn"
HEAVY_MODULE = "litellm"
PYGLS_RPC_LOGGER = "pygls.protocol.json_rpc"
PYGLS_DECODE_FAILURE = "Unable to deserialize message"
# The message size limit until the settings are read (only `initialize` comes before them).
STARTUP_MAX_MESSAGE_BYTES = 4 * 1024 * 1024

# (folders, settings, *, listener, approver, apply_edit) → engine.
EngineFactory = Callable[..., "EngineApi"]


class AnsweredErrorFilter(logging.Filter):
    """One line, not a traceback, for JSON-RPC errors already answered.

    pygls logs a traceback for every error response; InvalidParams and
    RequestFailed are expected answers to bad requests, and an unexpected
    exception was logged with its traceback where it was turned into an
    InternalError (`features.answered`). pygls' own decode-failure record
    (a traceback in the message) is dropped: `CairnProtocol.structure_message`
    logs one line naming the method and the fields. Other exceptions keep
    their traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(PYGLS_DECODE_FAILURE):
            return False
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, JsonRpcException):
            record.msg = f"{record.getMessage()}: {error.code} {error.message}"
            record.args = None
            record.exc_info = None
            record.levelno, record.levelname = logging.INFO, logging.getLevelName(logging.INFO)
        return True


class CairnServer(LanguageServer):
    """The server object handed to every handler as `ls`."""

    protocol: CairnProtocol  # pyright: ignore[reportIncompatibleVariableOverride]

    def __init__(self, engine_factory: EngineFactory = default_engine) -> None:
        super().__init__(
            SERVER_NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=CairnProtocol,
        )
        self._engine_factory = engine_factory
        self.editor = EditorBridge(self)
        self.listener = LspListener(self)
        self.host = EngineHost(self._build_engine, self._prepare)
        self.turns = TurnRegistry(self)
        # uri → path inside the workspace, or None for documents Cairn does not track.
        self.document_paths: dict[str, Path | None] = {}
        # Documents whose last change was refused → their language id (see documents.py).
        self.out_of_sync: dict[Path, str] = {}
        self.init_params: types.InitializeParams | None = None
        self.startup_problems: list[str] = []
        self.litellm_at_initialize: bool | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._closing: asyncio.Future[None] | None = None

    def _build_engine(self, folders: list[Path], settings: Settings) -> EngineApi:
        return self._engine_factory(
            folders,
            settings,
            listener=self.listener,
            approver=self.editor.approve,
            apply_edit=self.editor.apply_edit,
        )

    def on_initialize(self, params: types.InitializeParams) -> None:
        """Record the params; folders and settings are resolved after the answer."""
        self.bind_loop()
        self.init_params = params
        self.litellm_at_initialize = HEAVY_MODULE in sys.modules

    def _prepare(self) -> None:
        from cairn.lsp.initialize import prepare

        prepare(self)

    def message_limit(self) -> int:
        """The largest message to read now: the `max_message_bytes` setting once it is known."""
        if self.host.settings is None and self.init_params is not None:
            try:
                self._prepare()  # initialize was answered: the settings can be read
            except Exception:
                logger.exception("reading the settings failed")
        settings = self.host.settings
        return settings.max_message_bytes if settings is not None else STARTUP_MAX_MESSAGE_BYTES

    # -- loop and messages -----------------------------------------------------
    def bind_loop(self) -> None:
        """Remember the event loop (called from a handler, on the loop's thread)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    def send_notification(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification from any thread (the engine may call back from a worker)."""
        if self._loop is None or threading.get_ident() == self._loop_thread:
            self.protocol.notify(method, params)
        else:
            self._loop.call_soon_threadsafe(self.protocol.notify, method, params)

    def call_on_loop(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the event loop's thread (now when already there)."""
        if self._loop is None or threading.get_ident() == self._loop_thread:
            fn()
        else:
            self._loop.call_soon_threadsafe(fn)

    def log_to_client(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.call_on_loop(
            lambda: self.window_log_message(types.LogMessageParams(type=kind, message=message))
        )

    def show_to_user(
        self, message: str, kind: types.MessageType = types.MessageType.Warning
    ) -> None:
        self.call_on_loop(
            lambda: self.window_show_message(types.ShowMessageParams(type=kind, message=message))
        )

    def client_supports(self, field: str) -> bool:
        """A client capability by dotted path (e.g. `workspace.apply_edit`), False when absent."""
        try:
            capabilities = self.client_capabilities
        except AttributeError:
            return False
        return bool(get_capability(capabilities, field, False))

    # -- errors and lifecycle --------------------------------------------------
    def report_server_error(self, error: Exception, source: ServerErrors) -> None:
        """Log instead of a popup: a client sending garbage must not cause a popup storm."""
        if source is FeatureRequestError:
            logger.debug("request failed (already answered): %s", error)
            return
        logger.error("%s: %s", getattr(source, "__name__", source), error)

    async def aclose(self) -> None:
        """Stop the turns (their records complete), then the engine and its MCP servers
        (their processes gone): for `shutdown`, and for `exit` or the end of the stream
        without one. Bounded; a second call waits for the first."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._stop_everything())
        await asyncio.shield(self._closing)

    async def _stop_everything(self) -> None:
        await self.turns.stop_all()
        await self.host.aclose()

    def shutdown(self) -> None:
        """pygls' end of the server: what `aclose` did not get to is only asked to stop."""
        self.turns.cancel_all()
        self.host.close()
        super().shutdown()


def create_server(engine_factory: EngineFactory = default_engine) -> CairnServer:
    """A server with every feature registered (their modules load on first use)."""
    from cairn.lsp.features import register_features

    server = CairnServer(engine_factory)
    rpc_logger = logging.getLogger(PYGLS_RPC_LOGGER)
    if not any(isinstance(f, AnsweredErrorFilter) for f in rpc_logger.filters):
        rpc_logger.addFilter(AnsweredErrorFilter())
    register_features(server)
    return server
