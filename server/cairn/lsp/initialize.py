"""Lifecycle: `initialize`, `initialized`, `workspace/didChangeConfiguration`, `shutdown`.

`initialize` only reads the folders and the settings (no engine, no litellm:
the answer must be quick). `initialized` reports invalid settings with
`window/showMessage`, asks for file watching and starts loading the engine.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

from lsprotocol import types

from cairn.lsp.documents import register_watchers
from cairn.lsp.settings import resolve_settings, settings_section, workspace_folders

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer

logger = logging.getLogger(__name__)

SETTINGS_PREFIX = "Cairn settings: "
HEAVY_MODULE = "litellm"


def initialize(ls: CairnServer, params: types.InitializeParams) -> None:
    ls.bind_loop()
    folders = workspace_folders(params)
    settings, overrides, problems = resolve_settings(folders[0], params.initialization_options)
    ls.host.configure(folders, settings, overrides)
    ls.startup_problems = problems
    for problem in problems:
        logger.warning("%s", problem)
    ls.litellm_at_initialize = HEAVY_MODULE in sys.modules
    logger.info("initialize: %s (model %s)", ", ".join(map(str, folders)), settings.model)


def initialized(ls: CairnServer, params: types.InitializedParams) -> None:
    for problem in ls.startup_problems:
        ls.show_to_user(SETTINGS_PREFIX + problem)
    register_watchers(ls)
    ls.host.start()


def did_change_configuration(ls: CairnServer, params: types.DidChangeConfigurationParams) -> None:
    section = settings_section(params.settings)
    if section is None:
        return
    settings, overrides, problems = resolve_settings(ls.host.workspace.root, section)
    for problem in problems:
        ls.show_to_user(SETTINGS_PREFIX + problem)
    ls.host.update_settings(settings, overrides)


def shutdown(ls: CairnServer, params: None) -> None:
    ls.turns.cancel_all()
    ls.host.close()


def register(server: CairnServer) -> None:
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.feature(types.SHUTDOWN)(shutdown)
