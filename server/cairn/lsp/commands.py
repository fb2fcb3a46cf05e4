"""`workspace/executeCommand`: `cairn.fix`, `cairn.compact`, `cairn.fork`.

`cairn.fix [uri, diagnostic, sessionId?]` runs a turn (in that session, else
the active one) whose context carries that diagnostic (`FixTarget`); its
edits reach the editor as `workspace/applyEdit` and the command answers
with the turn's result. `cairn.compact [sessionId?]` and `cairn.fork
[sessionId, atMessageId?]` answer like `cairn/compact` and `cairn/fork`
(which names its session: no default to the active one); each also takes
one params object instead of positional values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pygls.exceptions import JsonRpcInvalidParams

from cairn.files.workspace import Workspace
from cairn.frontends.turns import TurnAsk
from cairn.lsp.methods import COMPACT_COMMAND, FIX_COMMAND, FORK_COMMAND
from cairn.lsp.params import ForkParams, P, SessionParams, wire_diagnostic
from cairn.lsp.rpc import parse_params, translated_errors
from cairn.lsp.server import CairnServer
from cairn.lsp.sessions import fork_session
from cairn.models.diagnostics import Diagnostic
from cairn.models.validation import describe_validation_error

SEVERITY_NAMES = {1: "error", 2: "warning", 3: "information", 4: "hint"}


def fix_arguments(args: tuple[Any, ...]) -> tuple[str, Diagnostic, str | None]:
    """`[uri, diagnostic, sessionId?]` → (uri, Diagnostic, session id or None);
    InvalidParams naming the problem."""
    if len(args) not in (2, 3):
        raise JsonRpcInvalidParams(
            f"{FIX_COMMAND}: expected 2 or 3 arguments [uri, diagnostic, sessionId?], "
            f"got {len(args)}"
        )
    uri, raw, *rest = args
    if not isinstance(uri, str) or not uri:
        raise JsonRpcInvalidParams(f"{FIX_COMMAND}: the first argument must be a document uri")
    session_id = rest[0] if rest else None
    if session_id is not None and (not isinstance(session_id, str) or not session_id):
        raise JsonRpcInvalidParams(f"{FIX_COMMAND}: the third argument must be a session id")
    try:
        return uri, wire_diagnostic(raw), session_id
    except ValidationError as exc:
        raise JsonRpcInvalidParams(
            f"{FIX_COMMAND}: diagnostic: {describe_validation_error(exc)}"
        ) from None


def fix_message(workspace: Workspace, path: Path, diagnostic: Diagnostic) -> str:
    """The user message of a fix turn, e.g. `Fix the error at app.py:3:5: name 'x' ...`."""
    kind = SEVERITY_NAMES.get(diagnostic.severity or 1, "problem")
    start = diagnostic.range.start
    where = f"{workspace.relative(path)}:{start.line + 1}:{start.character + 1}"
    source = f" ({diagnostic.source})" if diagnostic.source else ""
    return f"Fix the {kind} at {where}{source}: {diagnostic.message}"


def command_params(command: str, model: type[P], args: tuple[Any, ...]) -> P:
    """Positional arguments (in field order) or one params object → the params model."""
    if len(args) == 1 and isinstance(args[0], dict):
        return parse_params(command, model, args[0])
    names = list(model.model_fields)
    if len(args) > len(names):
        raise JsonRpcInvalidParams(
            f"{command}: expected at most {len(names)} arguments, got {len(args)}"
        )
    return parse_params(command, model, dict(zip(names, args, strict=False)))


async def fix(ls: CairnServer, *args: Any) -> dict[str, Any]:
    from cairn.agent.api import FixTarget

    uri, diagnostic, session_id = fix_arguments(args)
    engine = await ls.host.get()
    with translated_errors(FIX_COMMAND):
        path = engine.workspace.resolve(uri)
        message = fix_message(engine.workspace, path, diagnostic)
        ask = TurnAsk(message, session_id=session_id, fix=FixTarget(path, diagnostic))
        result = await ls.turns.run(engine, ask)
    return result.wire()


async def compact(ls: CairnServer, *args: Any) -> dict[str, Any]:
    params = command_params(COMPACT_COMMAND, SessionParams, args)
    engine = await ls.host.get()
    with translated_errors(COMPACT_COMMAND):
        return (await engine.compact(params.session_id)).wire()


async def fork(ls: CairnServer, *args: Any) -> dict[str, Any]:
    params = command_params(FORK_COMMAND, ForkParams, args)
    engine = await ls.host.get()
    with translated_errors(FORK_COMMAND):
        return fork_session(engine, params).wire()
