"""Lifecycle after the initialize answer: `initialized`, didChangeConfiguration, `shutdown`.

`initialize` itself (in `server.py`) only records its params: the answer must
be quick, so pydantic, the settings and the core are loaded afterwards.
`initialized` resolves the folders, the settings and the folder's trust (the
editor's `workspaceTrusted`, else the user's record), reports invalid settings
and a missing model (with how to set one) with `window/showMessage`, asks
for file watching and starts loading the engine. `shutdown` is answered only
when the running turns have ended (recorded as cancelled) and the engine's
MCP servers have stopped (bounded: a hung one is killed).
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from lsprotocol import types

from cairn.files.trust import trust_notes
from cairn.lsp.documents import register_watchers
from cairn.lsp.settings import editor_trust, resolve_settings, settings_section, workspace_folders

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer

logger = logging.getLogger(__name__)

SETTINGS_PREFIX = "Cairn settings: "


def prepare(ls: CairnServer) -> None:
    """Folders and settings from the recorded initialize params (once)."""
    params = ls.init_params
    if ls.host.configured or params is None:
        return
    folders = workspace_folders(params)
    options = params.initialization_options
    ls.host.editor_trust = editor_trust(options)
    settings, overrides, problems = resolve_settings(folders[0], options, ls.host.editor_trust)
    ls.host.configure(folders, settings, overrides)
    ls.startup_problems = problems
    for problem in problems:
        logger.warning("%s", problem)
    for note in trust_notes(settings, folders[0]):
        logger.warning("%s", note)
    model = settings.model or "none configured"
    logger.info("serving %s (model: %s)", ", ".join(map(str, folders)), model)


def no_model_notice() -> str:
    """The editor's "no model configured" text (imported only when it is needed)."""
    from cairn.llm.guide import no_model_message

    return "Cairn: " + no_model_message(os.environ, "editor")


def initialized(ls: CairnServer, params: types.InitializedParams) -> None:
    prepare(ls)
    for problem in ls.startup_problems:
        ls.show_to_user(SETTINGS_PREFIX + problem)
    if ls.host.settings is not None and ls.host.settings.model is None:
        notice = no_model_notice()
        logger.warning("%s", notice)
        ls.show_to_user(notice)
    register_watchers(ls)
    ls.host.start()


def did_change_configuration(ls: CairnServer, params: types.DidChangeConfigurationParams) -> None:
    section = settings_section(params.settings)
    if section is None:
        return
    root = ls.host.workspace.root
    settings, overrides, problems = resolve_settings(root, section, ls.host.editor_trust)
    for problem in problems:
        ls.show_to_user(SETTINGS_PREFIX + problem)
    ls.host.update_settings(settings, overrides)


async def shutdown(ls: CairnServer, params: None) -> None:
    """Answered once the turns have recorded their end and the MCP servers are gone."""
    await ls.aclose()
