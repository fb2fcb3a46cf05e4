"""`run_command(command, timeout_s?)`: a shell command in the workspace root, after approval.

The command runs in the sandbox the settings choose (`cairn.sandbox`: with
bubblewrap, only the workspace is writable, secrets are hidden and there is
no network); with `sandbox = "required"` and no sandbox that works here it
does not run at all, and the error names the fix. The tool result and its
data (`sandbox`) say which sandbox it ran in, or why none.

When the editor offers a terminal (`ctx.run_in_editor`, an ACP client's
`terminal/*`), the command runs there, so the user watches it live (a
sandboxed one as `exec bwrap ... -- /bin/sh -c COMMAND`, so killing the
terminal's process kills the sandbox). Else it runs here in its own process
group (so a timeout or a cancelled turn kills it and everything it started —
in a sandbox, killing bwrap ends its PID namespace, so even a process that
left the group dies; the group is registered in `ctx.processes` while it
runs, so a front end stopping at once can kill it too), with stdin closed
and stderr merged into stdout. The output is stored as a `log`
artifact; the model reads the exit code and the output — when long, its head,
its error lines with the lines around them and its tail (`shorten_output`).
An output past `MAX_CAPTURE_BYTES` is not cut off there: the rest still
streams through a bounded sampler (`cairn.files.sampling`), so its error
lines and its last lines (the test summary, the final traceback) are kept too.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import shlex
import signal
from typing import ClassVar

from pydantic import Field

from cairn.agent.api import CommandRequest, CommandRun
from cairn.agent.tools.approval import check_command
from cairn.agent.tools.base import (
    MAX_LINE_CHARS,
    OUTPUT_EXCERPT,
    Tool,
    ToolArgs,
    ToolContext,
    ToolFailure,
    ToolOutcome,
    shorten_output,
)
from cairn.context.excerpt import ERROR_CONTEXT_LINES, ExcerptShape, excerpt_of, is_error_line
from cairn.files.commands import is_test_command
from cairn.files.sampling import LineSampler, SampleShape
from cairn.sandbox.choice import SandboxUse, choose_sandbox, command_argv

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


# What is kept of the output past MAX_CAPTURE_BYTES: its last lines and error lines.
OVERFLOW_SAMPLE = SampleShape(
    head=0,
    tail=OUTPUT_EXCERPT.tail,
    max_errors=OUTPUT_EXCERPT.max_errors,
    context=ERROR_CONTEXT_LINES,
    max_line_chars=MAX_LINE_CHARS,
)


class _Capture:
    """The output of a command: its first MAX_CAPTURE_BYTES whole, then a bounded sample."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.dropped = 0
        self._overflow = LineSampler(OVERFLOW_SAMPLE, is_error_line)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def add(self, data: bytes) -> None:
        room = MAX_CAPTURE_BYTES - self.size
        kept = data[: max(room, 0)]
        self.parts.append(kept)
        self.size += len(kept)
        rest = data[len(kept) :]
        if rest:
            self.dropped += len(rest)
            self._overflow.feed(self._decoder.decode(rest))

    def text(self) -> str:
        text = b"".join(self.parts).decode("utf-8", errors="replace")
        if not self.dropped:
            return text
        self._overflow.feed(self._decoder.decode(b"", final=True))
        sample = self._overflow.finish()
        shape = ExcerptShape(0, OVERFLOW_SAMPLE.tail, OVERFLOW_SAMPLE.max_errors)
        rest = excerpt_of(sample, shape, max_line_chars=MAX_LINE_CHARS) or "\n".join(
            sample.line(i) for i in range(sample.total)
        )
        return (
            f"{text}\n[... the next {self.dropped} bytes ({sample.total} lines) were not kept"
            f" in memory; their error lines and last lines follow, numbered from the cut]\n{rest}"
        )


async def _read_all(stream: asyncio.StreamReader, capture: _Capture) -> None:
    while chunk := await stream.read(READ_CHUNK_BYTES):
        capture.add(chunk)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def _run_here(ctx: ToolContext, argv: list[str], timeout: float) -> CommandRun:
    """Run `argv` in its own process group, registered in `ctx.processes` while it runs."""
    capture = _Capture()
    process = await asyncio.create_subprocess_exec(
        *argv,
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
    return CommandRun(capture.text(), process.returncode, timed_out)


class RunCommand(Tool[RunCommandArgs]):
    name: ClassVar[str] = "run_command"
    description: ClassVar[str] = (
        "Run a shell command in the workspace root (e.g. the test suite) and get its exit code "
        "and output. Commands outside the allowlist need the user's approval."
    )
    args_model = RunCommandArgs

    async def run(self, args: RunCommandArgs, ctx: ToolContext) -> ToolOutcome:
        settings = ctx.settings
        sandbox = await asyncio.to_thread(
            choose_sandbox, settings.sandbox, settings.sandbox_network
        )
        if sandbox.refusal is not None:
            raise ToolFailure(f"command not run: {args.command} ({sandbox.refusal})")
        await check_command(ctx, args.command, sandbox)
        timeout = args.timeout_s or settings.command_timeout_s
        root = ctx.workspace.root
        argv = command_argv(sandbox, args.command, ctx.workspace.folders, root)
        run = None
        if ctx.run_in_editor is not None:
            shown = f"exec {shlex.join(argv)}" if sandbox.active else args.command
            run = await ctx.run_in_editor(CommandRequest(ctx.site, shown, root, timeout))
        if run is None:
            run = await _run_here(ctx, argv, timeout)
        ctx.refresh_files()
        return self._outcome(ctx, args.command, sandbox, run, timeout)

    def _outcome(
        self,
        ctx: ToolContext,
        command: str,
        sandbox: SandboxUse,
        run: CommandRun,
        timeout: float,
    ) -> ToolOutcome:
        output, exit_code, timed_out = run.output, run.exit_code, run.timed_out
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
            output=f"$ {command}\n{status} · {sandbox.describe()}\n{body}{stored}",
            ok=not timed_out,
            artifact_id=artifact_id,
            data={
                "command": command,
                "exit_code": None if timed_out else exit_code,
                "timed_out": timed_out,
                "test": is_test_command(command, ctx.allowed_commands),
                "sandbox": sandbox.kind,
            },
        )
