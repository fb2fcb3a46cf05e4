"""The engine's editor callbacks, served by the ACP client: permissions, files, terminals.

- `approve`: `session/request_permission` on the command's tool call (its
  title shows the command through `cairn.files.visible`) with three options — allow once, always allow (the command joins the
  session's allowlist), reject. A cancelled outcome, an error or an unknown
  option rejects.
- `read_text`: `fs/read_text_file` when the client advertises it, so the
  engine reads the editor's unsaved text; a client error falls back to the
  workspace (None).
- `apply_edit`: `fs/write_text_file` when advertised (the editor writes, so
  its buffers and undo follow); the engine hears about the change (and a
  buffer the turn shows is updated). A client error fails the edit with its
  message; without the capability the engine writes the file itself.
- `run_command`: with the `terminal` capability, `terminal/create` running
  `sh -c <command>` in the workspace, the terminal embedded in the tool call
  so the user watches it live, `terminal/wait_for_exit` up to the timeout
  (then `terminal/kill`), `terminal/output`, and always `terminal/release`
  (also when the turn is cancelled). Without it the engine runs the command.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.acp.schema import (
    CreateTerminalAnswer,
    ReadTextFileAnswer,
    TerminalOutputAnswer,
    selected_option,
)
from cairn.acp.updates import tool_title
from cairn.errors import CairnError
from cairn.files.visible import visible
from cairn.frontends.codes import INTERNAL_ERROR
from cairn.frontends.faults import RpcError
from cairn.frontends.sentences import approval_choice, approval_reason, sandbox_suffix

if TYPE_CHECKING:
    from cairn.acp.server import AcpServer
    from cairn.agent.api import Approval, ApprovalRequest, CallSite, CommandRequest, CommandRun

logger = logging.getLogger(__name__)

ALLOW_ONCE = "allow-once"
ALLOW_ALWAYS = "allow-always"
REJECT = "reject"
ANSWERS: dict[str, Approval] = {ALLOW_ONCE: "once", ALLOW_ALWAYS: "always", REJECT: "reject"}
SHELL = "sh"
# Output the client keeps per terminal (it drops the oldest beyond this).
TERMINAL_OUTPUT_BYTES = 8 * 1024 * 1024
TRUNCATED_NOTE = "[... earlier output dropped by the editor's terminal]\n"


def permission_options(command: str) -> list[dict[str, str]]:
    """Once, always (`command`: the command, or an MCP tool's `mcp:server/tool`), reject."""
    return [
        {"optionId": ALLOW_ONCE, "name": approval_choice("once"), "kind": "allow_once"},
        {
            "optionId": ALLOW_ALWAYS,
            "name": approval_choice("always", visible(command)),
            "kind": "allow_always",
        },
        {"optionId": REJECT, "name": approval_choice("reject"), "kind": "reject_once"},
    ]


def permission_call(request: ApprovalRequest) -> dict[str, Any]:
    """The `toolCall` of a permission request: the command, or the MCP tool call."""
    site, command = request.site, request.command
    if request.tool is not None:
        return {
            "toolCallId": site.call_id or "",
            "title": f"Call {visible(command)}",
            "kind": "other",
            "status": "pending",
        }
    return {
        "toolCallId": site.call_id or "",
        "title": tool_title("run_command", {"command": visible(command)})
        + approval_reason(visible(request.reason))
        + visible(sandbox_suffix(request.sandbox)),
        "kind": "execute",
        "status": "pending",
        "rawInput": {"command": command},
    }


def approval_of(answer: Any) -> Approval:
    """The engine's approval from a `session/request_permission` answer (reject unless an
    option was selected)."""
    return ANSWERS.get(selected_option(answer) or "", "reject")


class ClientBridge:
    """Implements the engine's `Approver`, `TextReader`, `EditApplier`, `CommandRunner`."""

    def __init__(self, server: AcpServer) -> None:
        self._server = server
        # The terminal each tool call ran in, until the call's end is reported.
        self.terminals: dict[str, str] = {}

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        conn = self._server.conn
        if conn is None:
            raise RpcError(INTERNAL_ERROR, f"{method}: no client is connected")
        return await conn.request(method, params)

    async def approve(self, request: ApprovalRequest) -> Approval:
        site, command = request.site, request.command
        params = {
            "sessionId": site.session_id,
            "toolCall": permission_call(request),
            "options": permission_options(request.tool or command),
        }
        try:
            answer = await self._request("session/request_permission", params)
        except RpcError as error:
            logger.warning("permission request failed (%s): %r rejected", error.message, command)
            return "reject"
        approval = approval_of(answer)
        if approval != "reject" and site.call_id:
            self._server.send(
                site.session_id,
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": site.call_id,
                    "status": "in_progress",
                },
            )
        return approval

    async def read_text(self, site: CallSite, path: Path) -> str | None:
        if not self._server.client.fs.read_text_file:
            return None
        params = {"sessionId": site.session_id, "path": str(path)}
        try:
            answer = await self._request("fs/read_text_file", params)
            return ReadTextFileAnswer.model_validate(answer).content
        except (RpcError, ValueError) as error:
            logger.info("fs/read_text_file %s failed (%s); reading the workspace", path, error)
            return None

    async def apply_edit(self, site: CallSite, path: Path, text: str) -> bool:
        if not self._server.client.fs.write_text_file:
            return False
        params = {"sessionId": site.session_id, "path": str(path), "content": text}
        try:
            await self._request("fs/write_text_file", params)
        except RpcError as error:
            raise CairnError(
                f"{path}: the editor did not write the file ({error.message})"
            ) from None
        session = self._server.sessions.get(site.session_id)
        if session is not None:
            workspace = session.engine.workspace
            buffer = workspace.buffers.get(path)
            if buffer is not None:
                workspace.open_buffer(path, text, buffer.version + 1, buffer.language_id)
            session.engine.files_changed([path])
        return True

    async def run_command(self, request: CommandRequest) -> CommandRun | None:
        if not self._server.client.terminal:
            return None
        site = request.site
        created = await self._request(
            "terminal/create",
            {
                "sessionId": site.session_id,
                "command": SHELL,
                "args": ["-c", request.command],
                "cwd": str(request.cwd),
                "outputByteLimit": TERMINAL_OUTPUT_BYTES,
            },
        )
        terminal = CreateTerminalAnswer.model_validate(created).terminal_id
        if site.call_id:
            self.terminals[site.call_id] = terminal
            self._server.send(
                site.session_id,
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": site.call_id,
                    "content": [{"type": "terminal", "terminalId": terminal}],
                },
            )
        try:
            return await self._wait(site.session_id, terminal, request.timeout_s)
        finally:
            release = self._request(
                "terminal/release", {"sessionId": site.session_id, "terminalId": terminal}
            )
            with contextlib.suppress(RpcError, asyncio.CancelledError):
                await asyncio.shield(asyncio.ensure_future(release))

    async def _wait(self, session_id: str, terminal: str, timeout_s: float) -> CommandRun:
        from cairn.agent.api import CommandRun

        ids = {"sessionId": session_id, "terminalId": terminal}
        timed_out = False
        try:
            await asyncio.wait_for(self._request("terminal/wait_for_exit", ids), timeout_s)
        except TimeoutError:
            timed_out = True
            await self._request("terminal/kill", ids)
        except asyncio.CancelledError:
            with contextlib.suppress(RpcError, asyncio.CancelledError):
                await asyncio.shield(asyncio.ensure_future(self._request("terminal/kill", ids)))
            raise
        answer = TerminalOutputAnswer.model_validate(await self._request("terminal/output", ids))
        output = (TRUNCATED_NOTE if answer.truncated else "") + answer.output
        status = answer.exit_status
        if status is not None and status.signal and not timed_out:
            output += f"\n[terminated by signal {status.signal}]"
        exit_code = None if timed_out or status is None else status.exit_code
        return CommandRun(output=output, exit_code=exit_code, timed_out=timed_out)
