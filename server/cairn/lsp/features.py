"""Every LSP method Cairn serves, registered with pygls without importing its module.

Capabilities are computed from what is registered when `initialize` arrives,
so every handler must be registered up front; importing the feature modules
would load pydantic and the core before the initialize answer. Each entry
names its module and function instead, imported on the first message. Custom
requests, commands and `shutdown` are `async` (they run as tasks); document sync and
code actions are plain functions (they run in arrival order, in microseconds).
An exception a handler does not expect is logged here with its traceback and
answered as InternalError (-32603) naming the method and the error in one line:
pygls would put the Python traceback into the response's `data`.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError

from cairn.lsp import methods

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer

logger = logging.getLogger(__name__)

PACKAGE = "cairn.lsp"
DEBUG_ENV = "CAIRN_LSP_DEBUG"
QUICKFIX_OPTIONS = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
SAVE_OPTIONS = types.SaveOptions(include_text=False)


@dataclass(frozen=True)
class Feature:
    """`method` is served by `cairn.lsp.<module>.<function>`."""

    method: str
    module: str
    function: str
    is_async: bool = False
    options: Any = None


FEATURES: tuple[Feature, ...] = (
    Feature(types.INITIALIZED, "initialize", "initialized"),
    Feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION, "initialize", "did_change_configuration"),
    Feature(types.SHUTDOWN, "initialize", "shutdown", is_async=True),
    Feature(types.TEXT_DOCUMENT_DID_OPEN, "documents", "did_open"),
    Feature(types.TEXT_DOCUMENT_DID_CHANGE, "documents", "did_change"),
    Feature(types.TEXT_DOCUMENT_DID_CLOSE, "documents", "did_close"),
    Feature(types.TEXT_DOCUMENT_DID_SAVE, "documents", "did_save", options=SAVE_OPTIONS),
    Feature(
        types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, "documents", "did_change_workspace_folders"
    ),
    Feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES, "documents", "did_change_watched_files"),
    Feature(methods.DIAGNOSTICS, "diagnostics_sync", "on_diagnostics"),
    Feature(
        types.TEXT_DOCUMENT_CODE_ACTION, "code_actions", "code_action", options=QUICKFIX_OPTIONS
    ),
    Feature(methods.TURN, "turns", "turn", is_async=True),
    Feature(methods.CONTEXT_STATS, "manifest_requests", "context_stats", is_async=True),
    Feature(methods.CONTEXT_MANIFEST, "manifest_requests", "context_manifest", is_async=True),
    Feature(methods.GOAL_TREE, "goals", "goal_tree", is_async=True),
    Feature(methods.GOAL, "goals", "goal", is_async=True),
    Feature(methods.COMPACT, "compaction", "compact", is_async=True),
    Feature(methods.SESSIONS, "sessions", "sessions", is_async=True),
    Feature(methods.FORK, "sessions", "fork", is_async=True),
    Feature(methods.DELETE_SESSION, "sessions", "delete_session", is_async=True),
    Feature(methods.NEW_SESSION, "sessions", "new_session", is_async=True),
    Feature(methods.TRANSCRIPT, "sessions", "transcript", is_async=True),
    Feature(methods.RESTORE, "sessions", "restore", is_async=True),
    Feature(methods.MODELS, "models_request", "models", is_async=True),
    Feature(methods.PROJECT_PROFILE, "profile_request", "project_profile", is_async=True),
    Feature(methods.MCP_SERVERS, "mcp_requests", "mcp_servers", is_async=True),
    Feature(methods.MCP_CONTROL, "mcp_requests", "mcp_control", is_async=True),
)
DEBUG_FEATURE = Feature(methods.DEBUG, "debug", "debug_info")
# `workspace/executeCommand` commands → their functions in `commands.py`.
COMMANDS = {
    methods.FIX_COMMAND: "fix",
    methods.COMPACT_COMMAND: "compact",
    methods.FORK_COMMAND: "fork",
}


def resolve(module: str, function: str) -> Callable[..., Any]:
    return getattr(importlib.import_module(f"{PACKAGE}.{module}"), function)


@contextmanager
def answered(method: str) -> Iterator[None]:
    """An unexpected exception → logged with its traceback, InternalError without one."""
    try:
        yield
    except (JsonRpcException, asyncio.CancelledError):
        raise
    except Exception as exc:
        logger.exception("%s failed", method)
        raise JsonRpcInternalError(f"{method}: {type(exc).__name__}: {exc}") from None


def lazy_handler(feature: Feature) -> Callable[..., Any]:
    """A handler with the same calling convention as the real one, loading it on first use."""
    method = feature.method
    if feature.is_async:

        async def async_handler(ls: Any, params: Any) -> Any:
            with answered(method):
                return await resolve(feature.module, feature.function)(ls, params)

        return async_handler

    def handler(ls: Any, params: Any) -> Any:
        with answered(method):
            return resolve(feature.module, feature.function)(ls, params)

    return handler


def lazy_command(name: str, function: str) -> Callable[..., Any]:
    async def command(ls: Any, *args: Any) -> Any:
        with answered(name):
            return await resolve("commands", function)(ls, *args)

    return command


def initialize(ls: CairnServer, params: types.InitializeParams) -> None:
    with answered(types.INITIALIZE):
        ls.on_initialize(params)


def register_features(server: CairnServer) -> None:
    server.feature(types.INITIALIZE)(initialize)
    features = FEATURES + ((DEBUG_FEATURE,) if os.environ.get(DEBUG_ENV) == "1" else ())
    for feature in features:
        server.feature(feature.method, feature.options)(lazy_handler(feature))
    for name, function in COMMANDS.items():
        server.command(name)(lazy_command(name, function))
