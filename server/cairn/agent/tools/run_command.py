"""`run_command(command, timeout_s?)`: a shell command in the workspace root, after approval.

When the editor offers a terminal (`ctx.run_in_editor`, an ACP client's
`terminal/*`), the command runs there, so the user watches it live. Else it
runs here in its own process group (so a timeout or a cancelled turn kills
it and everything it started; the group is registered in `ctx.processes`
while it runs, so a front end stopping at once can kill it too), with stdin
closed and stderr merged into stdout. The whole output is stored as a `log`
artifact; the model reads the exit code and the output (head and tail when
long).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import ClassVar

from pydantic import Field

from cairn.agent.api import CommandRequest
from cairn.agent.tools.approval import check_command
from cairn.agent.tools.base import Tool, ToolArgs, ToolContext, ToolOutcome, shorten_output
from cairn.compaction.ledger import is_test_command

# Longest a model may ask a command to run.
MAX_COMMAND_TIMEOUT_S = 1_800.0
# Output kept in memory per command; the rest is counted and dropped.
MAX_CAPTURE_BYTES = 8 * 1024 * 1024
READ_CHUNK_BYTES = 64 * 1024


class RunCommandArgs(ToolArgs):
    command: str = Field(min_length=1, description="Shell command, run in the workspace root.")
    timeout_s: float | None = Field(
        default=None,
        gt=0,
        le=MAX_COMMAND_TIMEOUT_S,
        description="Seconds before the command is killed. Default: the configured timeout.",
    )


class _Capture:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = MAX_CAPTURE_BYTES - self.size
        kept = data[: max(room, 0)]
        self.parts.append(kept)
        self.size += len(kept)
        self.dropped += len(data) - len(kept)

    def text(self) -> str:
        text = b"".join(self.parts).decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n[... {self.dropped} more bytes of output dropped]"
        return text


async def _read_all(stream: asyncio.StreamReader, capture: _Capture) -> None:
    while chunk := await stream.read(READ_CHUNK_BYTES):
        capture.add(chunk)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


class RunCommand(Tool[RunCommandArgs]):
    name: ClassVar[str] = "run_command"
    description: ClassVar[str] = (
        "Run a shell command in the workspace root (e.g. the test suite) and get its exit code "
        "and output. Commands outside the allowlist need the user's approval."
    )
    args_model = RunCommandArgs

    async def run(self, args: RunCommandArgs, ctx: ToolContext) -> ToolOutcome:
        await check_command(ctx, args.command)
        timeout = args.timeout_s or ctx.settings.command_timeout_s
        if ctx.run_in_editor is not None:
            request = CommandRequest(ctx.site, args.command, ctx.workspace.root, timeout)
            run = await ctx.run_in_editor(request)
            if run is not None:
                ctx.refresh_files()
                return self._outcome(
                    ctx, args.command, run.output, run.exit_code, run.timed_out, timeout
                )
        capture = _Capture()
        process = await asyncio.create_subprocess_shell(
            args.command,
            cwd=ctx.workspace.root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        assert process.stdout is not None
        ctx.processes.add(process.pid)
        timed_out = False
        try:
            async with asyncio.timeout(timeout):
                await _read_all(process.stdout, capture)
                await process.wait()
        except TimeoutError:
            timed_out = True
        finally:
            if process.returncode is None:
                _kill_group(process)
                await process.wait()
            ctx.processes.discard(process.pid)
        ctx.refresh_files()
        return self._outcome(
            ctx, args.command, capture.text(), process.returncode, timed_out, timeout
        )

    def _outcome(
        self,
        ctx: ToolContext,
        command: str,
        output: str,
        exit_code: int | None,
        timed_out: bool,
        timeout: float,
    ) -> ToolOutcome:
        artifact_id = ctx.trace.write_artifact(output, "log") if ctx.trace and output else None
        shown, shortened_into = shorten_output(ctx, output, "log")
        status = (
            f"timed out after {timeout:g} s (process group killed)"
            if timed_out
            else f"exit code {exit_code}"
        )
        stored = (
            f"\n[full output: artifact {artifact_id}]"
            if artifact_id and shortened_into is None
            else ""
        )
        body = shown if output else "(no output)"
        return ToolOutcome(
            output=f"$ {command}\n{status}\n{body}{stored}",
            ok=not timed_out,
            artifact_id=artifact_id,
            data={
                "command": command,
                "exit_code": None if timed_out else exit_code,
                "timed_out": timed_out,
                "test": is_test_command(command, ctx.allowed_commands),
            },
        )
