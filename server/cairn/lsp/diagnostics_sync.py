"""`cairn/diagnostics`: the editor's diagnostics (every provider) for one document.

The notification replaces the previous set for its uri; an empty list clears
it. Diagnostics are stored in the engine's `Workspace` as
`cairn.models.Diagnostic`s. A malformed notification is logged and dropped
(there is nobody to answer), and so is one for a file outside the workspace.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pygls.exceptions import JsonRpcInvalidParams

from cairn.errors import CairnError
from cairn.lsp.methods import DIAGNOSTICS
from cairn.lsp.params import DiagnosticsParams
from cairn.lsp.rpc import parse_params

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer
    from cairn.models.diagnostics import Diagnostic

logger = logging.getLogger(__name__)


def forwarded_diagnostics(ls: CairnServer, uri: str) -> list[Diagnostic]:
    """The diagnostics the editor forwarded for `uri` (empty when none or untracked)."""
    try:
        path = ls.host.workspace.resolve(uri)
    except CairnError:
        return []
    return ls.host.workspace.diagnostics.get(path, [])


def on_diagnostics(ls: CairnServer, raw: object) -> None:
    try:
        params = parse_params(DIAGNOSTICS, DiagnosticsParams, raw)
    except JsonRpcInvalidParams as exc:
        logger.warning("ignored: %s", exc.message)
        return
    workspace = ls.host.workspace
    try:
        path = workspace.resolve(params.uri)
    except CairnError as exc:
        logger.debug("ignored %s: %s", DIAGNOSTICS, exc)
        return
    workspace.set_diagnostics(path, params.diagnostics)
