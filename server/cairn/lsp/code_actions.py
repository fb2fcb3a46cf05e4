"""`textDocument/codeAction`: a "Fix with Cairn" quickfix for every diagnostic in the range.

Diagnostics come from the request's context (the client's view) and from the
set forwarded with `cairn/diagnostics` (every provider), without duplicates.
Each action runs the `cairn.fix` command with `[uri, diagnostic]`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from cairn.lsp.diagnostics_sync import forwarded_diagnostics

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer
    from cairn.models.diagnostics import Diagnostic

FIX_COMMAND = "cairn.fix"
TITLE_PREFIX = "Fix with Cairn: "
_CONVERTER = get_converter()


def overlaps(a: types.Range, b: types.Range) -> bool:
    """True when the ranges share a position (touching ends count, as editors do)."""
    a_start, a_end = (a.start.line, a.start.character), (a.end.line, a.end.character)
    b_start, b_end = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return a_start <= b_end and b_start <= a_end


def wants_quickfix(kind: str) -> bool:
    """True when a requested kind (`only`) includes quickfix (`quickfix` or a parent, e.g. "")."""
    quickfix = types.CodeActionKind.QuickFix.value
    return kind in ("", quickfix) or quickfix.startswith(f"{kind}.")


def to_lsp(diagnostic: Diagnostic) -> types.Diagnostic:
    r = diagnostic.range
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=r.start.line, character=r.start.character),
            end=types.Position(line=r.end.line, character=r.end.character),
        ),
        message=diagnostic.message,
        severity=types.DiagnosticSeverity(diagnostic.severity) if diagnostic.severity else None,
        source=diagnostic.source,
        code=diagnostic.code,
    )


def _identity(diagnostic: types.Diagnostic) -> tuple[Any, ...]:
    r = diagnostic.range
    return (
        r.start.line,
        r.start.character,
        r.end.line,
        r.end.character,
        diagnostic.message,
        diagnostic.source,
    )


def fix_action(uri: str, diagnostic: types.Diagnostic) -> types.CodeAction:
    title = TITLE_PREFIX + diagnostic.message
    argument = _CONVERTER.unstructure(diagnostic)
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        command=types.Command(title=title, command=FIX_COMMAND, arguments=[uri, argument]),
    )


def code_action(ls: CairnServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    only = params.context.only
    if only and not any(wants_quickfix(kind) for kind in only):
        return []
    uri = params.text_document.uri
    candidates = list(params.context.diagnostics) + [
        to_lsp(d) for d in forwarded_diagnostics(ls, uri)
    ]
    seen: set[tuple[Any, ...]] = set()
    actions: list[types.CodeAction] = []
    for diagnostic in candidates:
        key = _identity(diagnostic)
        if key in seen or not overlaps(diagnostic.range, params.range):
            continue
        seen.add(key)
        actions.append(fix_action(uri, diagnostic))
    return actions
