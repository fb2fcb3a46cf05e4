"""Test client for `cairn serve`: pytest-lsp's client, keeping `cairn/*` payloads as plain JSON.

pygls (on the client side too) turns custom payloads into namedtuples that
rename odd keys; this client keeps responses to `cairn/*` requests and
`cairn/*` notifications as the dicts that were on the wire, so tests assert
the exact PROTOCOL.md shapes. Every notification is recorded from the start,
so a test marks the log *before* a request and waits from that mark (no race
with notifications that arrive before a waiter would be registered).
The client answers `workspace/applyEdit` (recording the edit),
`window/showMessageRequest` (with a configurable choice) and, when it
declares it, `cairn/approval` (with configurable decisions).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol

import attrs
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, LanguageClientProtocol
from pytest_lsp import client_capabilities as known_client_capabilities
from pytest_lsp.client import register_lsp_features

from cairn.files.workspace import path_to_uri

SERVER_COMMAND = [sys.executable, "-m", "cairn", "serve"]
EDITORS = ["visual-studio-code", "neovim"]
NOTIFICATION_TIMEOUT_S = 60.0
SCRIPT_FILE = "script.jsonl"
# Results kept as plain JSON too: lsprotocol decodes a CodeAction that has a command as a
# Command (its union hook only checks for a "command" key), unlike VS Code and Neovim.
RAW_RESULT_METHODS = {types.TEXT_DOCUMENT_CODE_ACTION, types.WORKSPACE_EXECUTE_COMMAND}
CAIRN_NOTIFICATIONS = (
    "cairn/turnEvent",
    "cairn/goalTreeChanged",
    "cairn/compaction",
    "cairn/contextStatsChanged",
)
DEBUG_ENV = {"CAIRN_LSP_DEBUG": "1", "CAIRN_LOG_LEVEL": "INFO"}


@attrs.define
class RawResponse:
    id: Any
    jsonrpc: str
    result: Any = None


@attrs.define
class RawNotification:
    method: str
    jsonrpc: str
    params: Any = None


class NotificationLog:
    """Every notification the server sent, in order, with a way to wait for one."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Any]] = []
        self._changed = asyncio.Event()

    def add(self, method: str, params: Any) -> None:
        self.items.append((method, params))
        self._changed.set()

    def mark(self) -> int:
        """The position to wait from (take it before the request that triggers a notification)."""
        return len(self.items)

    def since(self, mark: int, method: str) -> list[Any]:
        return [params for m, params in self.items[mark:] if m == method]

    async def wait_for(
        self,
        method: str,
        mark: int = 0,
        predicate: Callable[[Any], bool] = lambda _params: True,
        timeout: float = NOTIFICATION_TIMEOUT_S,
    ) -> Any:
        async def scan() -> Any:
            while True:
                for params in self.since(mark, method):
                    if predicate(params):
                        return params
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(scan(), timeout)


class CairnClientProtocol(LanguageClientProtocol):
    """Keeps `cairn/*` payloads and `RAW_RESULT_METHODS` results as plain JSON."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.raw_ids: set[Any] = set()
        self.log = NotificationLog()

    def send_request(
        self, method: str, params: Any = None, callback: Any = None, msg_id: Any = None
    ) -> Future[Any]:
        if method.startswith("cairn/") or method in RAW_RESULT_METHODS:
            msg_id = msg_id if msg_id is not None else str(uuid.uuid4())
            self.raw_ids.add(msg_id)
        return super().send_request(method, params, callback, msg_id)

    def structure_message(self, data: dict[str, Any]) -> Any:
        if "jsonrpc" in data and "method" not in data and data.get("id") in self.raw_ids:
            self.raw_ids.discard(data["id"])
            if "error" not in data:
                return RawResponse(
                    id=data["id"], jsonrpc=data["jsonrpc"], result=data.get("result")
                )
        method = data.get("method")
        if "jsonrpc" in data and "id" not in data and isinstance(method, str):
            raw = data.get("params")
            self.log.add(method, raw)
            if method.startswith("cairn/"):
                return RawNotification(method=method, jsonrpc=data["jsonrpc"], params=raw)
        return super().structure_message(data)


class CairnClient(LanguageClient):
    """pytest-lsp's client plus recorded edits and scripted approvals."""

    protocol: CairnClientProtocol  # pyright: ignore[reportIncompatibleVariableOverride]

    def __init__(self) -> None:
        super().__init__(protocol_cls=CairnClientProtocol, converter_factory=default_converter)
        self.applied_edits: list[types.WorkspaceEdit] = []
        self.edit_labels: list[str | None] = []
        self.apply_edits = True
        self.approval: str | None = "Run"
        self.approval_requests: list[str] = []
        # Answers to `cairn/approval` (in order) and what was asked.
        self.decisions: list[str] = []
        self.approvals_asked: list[dict[str, Any]] = []
        self.registrations: list[types.Registration] = []
        self.root: Path = Path()
        self.init_result: types.InitializeResult | None = None

    @property
    def log(self) -> NotificationLog:
        return self.protocol.log

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request and return its result as plain JSON (errors raise JsonRpcException)."""
        return await self.protocol.send_request_async(method, params)

    def start_request(self, method: str, params: Any = None) -> tuple[str, asyncio.Future[Any]]:
        """Send a request without waiting: (its id, for `cancel`; the future of its result)."""
        msg_id = str(uuid.uuid4())
        future = asyncio.ensure_future(self.protocol.send_request_async(method, params, msg_id))
        return msg_id, future

    def cancel(self, msg_id: str) -> None:
        self.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))

    def uri(self, relative: str) -> str:
        return path_to_uri(self.root / relative)


class Starter(Protocol):
    """The `start` fixture: write a workspace, start `cairn serve`, initialize it."""

    def __call__(
        self,
        *,
        script: list[dict[str, Any]] | None = None,
        settings: dict[str, Any] | None = None,
        files: dict[str, str] | None = None,
        options: Any = None,
        experimental: Any = None,
    ) -> Awaitable[CairnClient]: ...


def make_client() -> CairnClient:
    client = CairnClient()
    register_lsp_features(client)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(
        ls: CairnClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        ls.applied_edits.append(params.edit)
        ls.edit_labels.append(params.label)
        if ls.apply_edits:
            return types.ApplyWorkspaceEditResult(applied=True)
        return types.ApplyWorkspaceEditResult(applied=False, failure_reason="refused by the test")

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def show_message_request(
        ls: CairnClient, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        ls.approval_requests.append(params.message)
        return None if ls.approval is None else types.MessageActionItem(title=ls.approval)

    @client.feature("cairn/approval")
    def approval(ls: CairnClient, params: Any) -> dict[str, str]:
        asked = params._asdict() if hasattr(params, "_asdict") else dict(params)
        ls.approvals_asked.append(asked)
        return {"decision": ls.decisions.pop(0) if ls.decisions else "reject"}

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(ls: CairnClient, params: types.RegistrationParams) -> None:
        ls.registrations.extend(params.registrations)

    for method in CAIRN_NOTIFICATIONS:  # recorded by the protocol; registered to stay quiet
        client.feature(method)(_ignore)
    return client


def _ignore(ls: CairnClient, params: Any) -> None:
    """Custom notifications are read from `client.log`."""


def _toml_pairs(values: dict[str, Any]) -> str:
    """`key = value` lines (JSON values are valid TOML for strings, numbers, lists)."""
    return "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())


def write_workspace(
    root: Path,
    *,
    script: list[dict[str, Any]] | None = None,
    settings: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
    mcp_servers: dict[str, dict[str, Any]] | None = None,
) -> Path:
    """A small real workspace: `cairn.toml` selecting the scripted model (and running
    `mcp_servers`, each an `[mcp.servers.NAME]` table), the script, files."""
    root.mkdir(parents=True, exist_ok=True)
    toml = {"model": f"scripted/{SCRIPT_FILE}", **(settings or {})}
    text = _toml_pairs(toml) + "".join(
        f"\n[mcp.servers.{name}]\n{_toml_pairs(table)}"
        for name, table in (mcp_servers or {}).items()
    )
    (root / "cairn.toml").write_text(text, encoding="utf-8")
    (root / SCRIPT_FILE).write_text(
        "".join(json.dumps(line) + "\n" for line in script or []), encoding="utf-8"
    )
    for name, text in (files or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def initialize_params(
    editor: str, root: Path, options: Any = None, experimental: Any = None
) -> types.InitializeParams:
    capabilities = known_client_capabilities(editor)
    if experimental is not None:
        capabilities.experimental = experimental
    return types.InitializeParams(
        capabilities=capabilities,
        root_uri=path_to_uri(root),
        workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(root), name=root.name)],
        initialization_options=options,
    )


def server_config(command: list[str] | None = None) -> ClientServerConfig:
    return ClientServerConfig(
        server_command=command or SERVER_COMMAND,
        client_factory=make_client,
        server_env={**os.environ, **DEBUG_ENV},
    )


async def start_client(
    editor: str,
    root: Path,
    options: Any = None,
    command: list[str] | None = None,
    experimental: Any = None,
) -> CairnClient:
    """Start `cairn serve` for `root` and initialize it as `editor` would (plus any
    `experimental` client capabilities)."""
    client = await server_config(command).start()
    assert isinstance(client, CairnClient)
    client.root = root
    params = initialize_params(editor, root, options, experimental)
    client.init_result = await client.initialize_session(params)
    return client
