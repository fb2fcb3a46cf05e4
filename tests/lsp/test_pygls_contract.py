"""What Cairn relies on inside pygls (supported: `pygls>=2.1.1,<3` in pyproject.toml).

Cairn reads the stream itself (`lsp/transport.py`) and subclasses pygls'
`LanguageServerProtocol` (`lsp/protocol.py`). It overrides no private method:
cancellation is intercepted in `handle_message` and refusals are written
through Cairn's own writer. What remains is pinned here, one test per thing
relied on, each failing with a message saying what changed and what in Cairn
to revisit. pygls 2.1 has no public hook for `$/cancelRequest` (its
`_handle_notification` handles it before any user feature) nor for message
decoding, so these overrides stay.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import cattrs
import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol
from pygls.protocol import json_rpc as pygls_json_rpc
from pygls.server import JsonRPCServer

from cairn.lsp.framing import Frame, FrameReader
from cairn.lsp.protocol import CairnProtocol
from cairn.lsp.server import PYGLS_DECODE_FAILURE, PYGLS_RPC_LOGGER, CairnServer, create_server
from cairn.lsp.transport import FramedWriter

REVISIT = "revisit cairn/lsp/protocol.py and cairn/lsp/transport.py"
SUPPORTED_LOWEST, SUPPORTED_ABOVE = (2, 1, 1), (3,)
LIMIT = 1 << 20
# Builtin features Cairn replaces: pygls' method name → the LSP method.
REPLACED_BUILTINS = {
    "lsp_initialize": types.INITIALIZE,
    "lsp_text_document__did_open": types.TEXT_DOCUMENT_DID_OPEN,
    "lsp_text_document__did_change": types.TEXT_DOCUMENT_DID_CHANGE,
    "lsp_text_document__did_close": types.TEXT_DOCUMENT_DID_CLOSE,
}


class Capture:
    """Cairn's `FramedWriter` over a byte list: what pygls writes, read back as frames."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.closed = False
        self.writer = FramedWriter(self.chunks.append, self._close)

    def _close(self) -> None:
        self.closed = True

    def messages(self) -> list[dict[str, Any]]:
        reader = FrameReader(lambda: LIMIT)
        reader.feed(b"".join(self.chunks))
        found: list[dict[str, Any]] = []
        while (event := reader.next_event()) is not None:
            assert isinstance(event, Frame), f"pygls wrote more than a body: {event}; {REVISIT}"
            found.append(json.loads(event.body))
        return found


def parameters(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


@pytest.fixture
def server() -> Iterator[CairnServer]:
    server = create_server()
    yield server
    server.shutdown()


def connect(server: CairnServer) -> Capture:
    capture = Capture()
    server.protocol.connect(capture.writer)  # set_writer(..., include_headers=False)
    return capture


def test_the_installed_pygls_is_in_the_supported_range() -> None:
    installed = version("pygls")
    numbers = tuple(int(part) for part in installed.split(".")[:3] if part.isdigit())
    assert SUPPORTED_LOWEST <= numbers < SUPPORTED_ABOVE, (
        f"pygls {installed} is outside the supported >=2.1.1,<3 (pyproject.toml): {REVISIT}"
    )


def test_the_protocol_is_built_by_the_server_with_server_and_converter() -> None:
    assert parameters(JsonRPCServer.__init__)[:3] == [
        "self",
        "protocol_cls",
        "converter_factory",
    ], (
        f"pygls changed how a server builds its protocol (CairnProtocol(server, converter)): {REVISIT}"
    )
    server = create_server()
    assert isinstance(server.protocol, CairnProtocol) and server.protocol.cairn is server


def test_structure_message_and_handle_message_keep_their_signatures() -> None:
    for name, expected in (
        ("structure_message", ["self", "data"]),
        ("handle_message", ["self", "message"]),
    ):
        assert parameters(getattr(JsonRPCProtocol, name)) == expected, (
            f"pygls changed JsonRPCProtocol.{name}, which CairnProtocol overrides: {REVISIT}"
        )


def test_structure_message_decodes_lsp_messages_and_raises_with_the_cattrs_cause(
    server: CairnServer, caplog: pytest.LogCaptureFixture
) -> None:
    data = {"jsonrpc": "2.0", "id": 1, "method": types.SHUTDOWN}
    decoded = LanguageServerProtocol.structure_message(server.protocol, data)
    assert isinstance(decoded, types.ShutdownRequest), (
        f"pygls no longer decodes LSP requests to lsprotocol types: {REVISIT}"
    )
    bad = {"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_OPEN, "params": {"textDocument": 5}}
    rpc_logger = logging.getLogger(PYGLS_RPC_LOGGER)
    filters = list(rpc_logger.filters)
    for installed in filters:  # Cairn's filter drops the very record looked for
        rpc_logger.removeFilter(installed)
    try:
        with (
            caplog.at_level(logging.ERROR, PYGLS_RPC_LOGGER),
            pytest.raises(JsonRpcException) as raised,
        ):
            LanguageServerProtocol.structure_message(server.protocol, bad)
    finally:
        for installed in filters:
            rpc_logger.addFilter(installed)
    assert isinstance(raised.value.__cause__, cattrs.BaseValidationError), (
        f"pygls' decode error no longer carries the cattrs error (describe_structure_error): {REVISIT}"
    )
    records = [r for r in caplog.records if r.name == PYGLS_RPC_LOGGER]
    assert records and records[0].getMessage().startswith(PYGLS_DECODE_FAILURE), (
        f"pygls logs decode failures differently (AnsweredErrorFilter drops them): {REVISIT}"
    )
    assert pygls_json_rpc.logger.name == PYGLS_RPC_LOGGER


def test_cairn_replaces_the_builtin_features_it_overrides(server: CairnServer) -> None:
    builtins = server.protocol.fm.builtin_features
    for name, method in REPLACED_BUILTINS.items():
        pygls_method = getattr(LanguageServerProtocol, name, None)
        assert getattr(pygls_method, "method_name", None) == method, (
            f"pygls renamed its builtin {method} handler ({name}): CairnProtocol's override "
            f"would run next to it, not instead of it: {REVISIT}"
        )
        assert inspect.isgeneratorfunction(pygls_method) or name != "lsp_initialize", (
            f"pygls' {name} is no longer a generator (CairnProtocol yields from it): {REVISIT}"
        )
        registered = builtins[method]
        assert registered.__func__ is getattr(CairnProtocol, name), (
            f"the builtin {method} handler is not CairnProtocol.{name}: {REVISIT}"
        )
    assert types.TEXT_DOCUMENT_DID_OPEN in server.protocol.fm.features, (
        f"pygls' FeatureManager.features no longer maps methods to user handlers: {REVISIT}"
    )


async def test_a_request_goes_through_receive_and_is_written_as_a_bare_body(
    server: CairnServer, tmp_path: Path
) -> None:
    capture = connect(server)
    server.protocol.receive(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": types.INITIALIZE,
            "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}},
        }
    )
    answers = capture.messages()  # one frame each: pygls wrote no header of its own
    assert [a.get("id") for a in answers] == [1], (
        f"pygls no longer answers a request handled through handle_message at once, or "
        f"set_writer(include_headers=False) writes more than the body: {REVISIT}"
    )
    assert answers[0]["result"]["serverInfo"]["name"] == "cairn"


async def test_exit_closes_the_writer_and_raises_system_exit(server: CairnServer) -> None:
    capture = connect(server)
    server.protocol.receive(
        {"jsonrpc": "2.0", "id": 1, "method": types.INITIALIZE, "params": {"capabilities": {}}}
    )
    with pytest.raises(SystemExit) as raised:
        server.protocol.receive({"jsonrpc": "2.0", "method": types.EXIT})
    assert raised.value.code == 1 and capture.closed, (
        f"pygls' exit no longer closes the writer and raises SystemExit(1 without shutdown): "
        f"the transport's loop ends on that: {REVISIT}"
    )


async def test_cancel_notifications_decode_with_the_request_id(server: CairnServer) -> None:
    data = {"jsonrpc": "2.0", "method": types.CANCEL_REQUEST, "params": {"id": "r1"}}
    message = server.protocol.structure_message(data)
    assert message.method == types.CANCEL_REQUEST and message.params.id == "r1", (
        f"$/cancelRequest decodes differently (CairnProtocol._cancel_turn reads params.id): {REVISIT}"
    )


def test_internal_errors_carry_no_data_unless_given() -> None:
    error = JsonRpcInternalError("cairn/x: RuntimeError: boom").to_response_error()
    assert (error.code, error.message, error.data) == (
        -32603,
        "cairn/x: RuntimeError: boom",
        None,
    ), f"JsonRpcInternalError changed (features.answered relies on no traceback in data): {REVISIT}"


def test_report_server_error_and_shutdown_keep_their_contract() -> None:
    assert parameters(JsonRPCServer.report_server_error) == ["self", "error", "source"], (
        f"pygls changed report_server_error, which CairnServer overrides: {REVISIT}"
    )
    create_server().shutdown()  # safe without start_io/start_tcp (the transport never calls them)
