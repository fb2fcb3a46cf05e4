"""The engine's editor callbacks: edits via `workspace/applyEdit`, approvals of commands.

`apply_edit(site, path, new_text)` sends the smallest whole-line edit that
turns the editor's current text (the open buffer, else the file) into
`new_text`, so undo and dirty buffers work; its label says whose edit it is
(`Cairn` for a tool call's, `Cairn: restore` for a checkpoint's: the site's
purpose). It returns
False when the client cannot apply edits (or cannot create a missing file):
the engine then writes to disk. When the client refuses an edit (a user
rejecting it in review), a `CairnError` says so and nothing is written.

`approve(request)` asks the user whether a command may run: with a
`cairn/approval` request when the client declared it
(`capabilities.experimental.cairn.approvals`, answered inline in its chat),
else with `window/showMessageRequest` (Run / Always allow in this session /
Reject, the chat's buttons: `cairn.frontends.sentences`).
Anything but a clear answer rejects.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

from cairn.compaction.ledger import COMMAND_TOOL
from cairn.errors import CairnError
from cairn.frontends.sentences import APPROVAL_BUTTONS, approval_question, sandbox_sentence
from cairn.lsp.methods import (
    AGENT_EDIT_LABEL,
    APPROVAL,
    APPROVALS_CAPABILITY,
    EXPERIMENTAL_SECTION,
    RESTORE_EDIT_LABEL,
)

if TYPE_CHECKING:
    from cairn.agent.api import Approval, ApprovalRequest, CallSite, EditPurpose
    from cairn.lsp.server import CairnServer

logger = logging.getLogger(__name__)

# The buttons of the showMessageRequest fallback (the chat's), and the decision each stands for.
APPROVAL_ACTIONS: dict[str, Approval] = {
    label: answer for answer, label in APPROVAL_BUTTONS.items()
}
EDIT_LABELS: dict[EditPurpose, str] = {"agent": AGENT_EDIT_LABEL, "restore": RESTORE_EDIT_LABEL}


def declares_approvals(experimental: object) -> bool:
    """Whether `capabilities.experimental` says the client answers `cairn/approval`."""
    section = experimental.get(EXPERIMENTAL_SECTION) if isinstance(experimental, dict) else None
    return isinstance(section, dict) and section.get(APPROVALS_CAPABILITY) is True


def decision_of(result: object) -> Approval:
    """The decision in a `cairn/approval` answer (a dict or pygls' namedtuple); reject
    when it is not one of the three."""
    from cairn.models.events import ApprovalResult

    raw = result._asdict() if hasattr(result, "_asdict") else result  # pyright: ignore
    try:
        return ApprovalResult.model_validate(raw).decision
    except ValueError:
        logger.warning("unexpected cairn/approval answer %r; rejecting", result)
        return "reject"


def utf16_length(text: str) -> int:
    if text.isascii():
        return len(text)
    return sum(2 if ord(char) > 0xFFFF else 1 for char in text)


def line_edit(old: str, new: str) -> types.TextEdit | None:
    """One TextEdit replacing only the lines that differ (None when the texts are equal)."""
    from cairn.files.text import split_lines

    if old == new:
        return None
    old_lines, new_lines = split_lines(old), split_lines(new)
    prefix = 0
    limit = min(len(old_lines), len(new_lines)) - 1
    while prefix < limit and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and old_lines[len(old_lines) - 1 - suffix] == new_lines[len(new_lines) - 1 - suffix]
    ):
        suffix += 1
    old_end = len(old_lines) - suffix  # exclusive
    new_text = "".join(new_lines[prefix : len(new_lines) - suffix])
    if old_end < len(old_lines):
        end = types.Position(line=old_end, character=0)
    else:
        last = old_lines[-1]
        end = types.Position(line=len(old_lines) - 1, character=utf16_length(last))
    return types.TextEdit(
        range=types.Range(start=types.Position(line=prefix, character=0), end=end),
        new_text=new_text,
    )


class EditorBridge:
    """Implements the engine's `EditApplier` and `Approver` with the attached editor."""

    def __init__(self, server: CairnServer) -> None:
        self._server = server

    def _workspace_edit(self, path: Path, new_text: str) -> types.WorkspaceEdit | None:
        from cairn.files.workspace import path_to_uri

        ls = self._server
        uri = path_to_uri(path)
        workspace = ls.host.workspace
        buffer = workspace.buffers.get(path)
        document_changes = ls.client_supports("workspace.workspace_edit.document_changes")
        if buffer is None and not path.exists():
            operations = get_capability(
                ls.client_capabilities, "workspace.workspace_edit.resource_operations", []
            )
            if not (document_changes and types.ResourceOperationKind.Create in operations):
                return None
            insert = types.TextEdit(
                range=types.Range(
                    start=types.Position(line=0, character=0),
                    end=types.Position(line=0, character=0),
                ),
                new_text=new_text,
            )
            return types.WorkspaceEdit(
                document_changes=[
                    types.CreateFile(
                        uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)
                    ),
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(
                            uri=uri, version=None
                        ),
                        edits=[insert],
                    ),
                ]
            )
        old = buffer.text if buffer is not None else workspace.read_text(path)
        edit = line_edit(old, new_text)
        edits = [edit] if edit is not None else []
        if document_changes:
            version = buffer.version if buffer is not None else None
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(
                            uri=uri, version=version
                        ),
                        edits=edits,
                    )
                ]
            )
        return types.WorkspaceEdit(changes={uri: edits})

    async def apply_edit(self, site: CallSite, path: Path, new_text: str) -> bool:
        ls = self._server
        if not ls.client_supports("workspace.apply_edit"):
            return False
        edit = self._workspace_edit(path, new_text)
        if edit is None:
            return False
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label=EDIT_LABELS[site.purpose])
        )
        if not result.applied:
            reason = result.failure_reason or "no reason given"
            raise CairnError(
                f"{ls.host.workspace.relative(path)}: the editor refused the edit ({reason})"
            )
        return True

    def _answers_approvals(self) -> bool:
        try:
            experimental = self._server.client_capabilities.experimental
        except AttributeError:
            return False
        return declares_approvals(experimental)

    async def approve(self, request: ApprovalRequest) -> Approval:
        from cairn.models.events import ApprovalParams

        params = ApprovalParams(
            session_id=request.site.session_id,
            turn_id=request.turn_id,
            call_id=request.site.call_id or "",
            tool=request.tool or COMMAND_TOOL,
            command=request.command,
            reason=request.reason,
            sandbox=sandbox_sentence(request.sandbox),
        )
        try:
            if self._answers_approvals():
                result = await self._server.protocol.send_request_async(APPROVAL, params.wire())
                return decision_of(result)
            return await self._ask_with_message(request)
        except Exception:
            logger.warning("approval request failed; rejecting %r", request.command, exc_info=True)
            return "reject"

    async def _ask_with_message(self, request: ApprovalRequest) -> Approval:
        choice = await self._server.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=approval_question(
                    request.command, request.tool, request.reason, request.sandbox
                ),
                actions=[types.MessageActionItem(title=title) for title in APPROVAL_ACTIONS],
            )
        )
        return APPROVAL_ACTIONS.get(choice.title, "reject") if choice is not None else "reject"
