"""The engine's public surface: what the front ends (LSP, ACP) and the CLI call.

`cairn.agent.engine.Engine` implements `EngineApi`. The LSP and ACP layers
only translate protocol messages to these calls and these results back; the
callbacks below are how the engine reaches the editor (or the terminal).
Each callback is told the `CallSite` it serves (the session and the tool
call), so a front end that multiplexes sessions over one connection can
address the right one. Any method given an unknown session id raises
`UnknownSessionError`; bad arguments raise `InvalidRequestError` /
`GoalError`; state is unchanged then.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from cairn.files.workspace import Workspace
from cairn.mcp.hub import McpAction
from cairn.mcp.state import ServerStatus
from cairn.models.catalog import ModelCatalog
from cairn.models.diagnostics import Diagnostic
from cairn.models.events import (
    ApprovalDecision,
    CompactionEvent,
    CompactResult,
    GoalTreeView,
    RestoreResult,
    SessionInfo,
    TurnEvent,
    TurnResult,
)
from cairn.models.manifest import ContextStats, Manifest
from cairn.models.mcp_status import McpReport
from cairn.models.messages import Message, ToolCallPart, ToolResultPart
from cairn.models.profile import ProjectProfile
from cairn.models.progress import ProgressEvent
from cairn.models.session import SessionMeta
from cairn.models.transcript import Transcript
from cairn.sandbox.choice import SandboxUse
from cairn.settings import McpServerSettings, Mode, Settings

# Why the engine edits a file: a tool call's edit (an editor may hold it for review), or
# a checkpoint restore (`restore`; never held).
EditPurpose = Literal["agent", "restore"]


@dataclass(frozen=True)
class CallSite:
    """Which session, and which of its tool calls (None outside a call), a callback serves;
    `purpose` says why an edit is made."""

    session_id: str
    call_id: str | None = None
    purpose: EditPurpose = "agent"


@dataclass(frozen=True)
class FileEdit:
    """One whole-file change a tool call made: the text before (None: new file) and after."""

    path: Path
    before: str | None
    after: str


@dataclass(frozen=True)
class ToolCallEvent:
    """A tool call starting (`result` None) or finished (with its result and its edits).

    The parts are the ones recorded in the trace, so a front end renders a live
    call and a replayed one the same way.
    """

    session_id: str
    turn_id: str
    call: ToolCallPart
    result: ToolResultPart | None = None
    edits: tuple[FileEdit, ...] = ()


class EngineListener(Protocol):
    """Receives live events; every method must return quickly and never raise."""

    def on_turn_event(self, event: TurnEvent) -> None: ...
    def on_goal_tree_changed(self, view: GoalTreeView) -> None: ...
    def on_compaction(self, event: CompactionEvent) -> None: ...
    def on_context_stats(self, stats: ContextStats) -> None: ...
    def on_log(self, message: str) -> None: ...
    def on_tool_call(self, event: ToolCallEvent) -> None: ...
    def on_progress(self, event: ProgressEvent) -> None: ...


class McpStatusListener(Protocol):
    """What a listener may also have (`SafeListener` looks it up): each MCP server's status
    when it changes — started, crashed (how it ended, its last stderr lines, its restart
    count), restarted, failed, its tools changed, stopped. A listener without it gets the
    change as an `on_log` line (`cairn.mcp.state.status_sentence`)."""

    def on_mcp_status(self, status: ServerStatus) -> None: ...


@dataclass(frozen=True)
class LearnedLimit:
    """A provider refused a call as too long, and the session now builds for its stated
    window (`window` tokens, for `model`); `reason` is the sentence on the retry's manifest."""

    session_id: str
    model: str
    window: int
    reason: str

    @property
    def line(self) -> str:
        """The one line a listener without `on_learned_limit` logs."""
        return f"model {self.model}: {self.reason}"


class LimitListener(Protocol):
    """What a listener may also have (`SafeListener` looks it up): a limit a provider stated
    and the session kept (`LearnedLimit`). A listener without it gets its `line` as
    `on_log`."""

    def on_learned_limit(self, event: LearnedLimit) -> None: ...


# The user's answer to a command outside the allowlist (or an MCP tool not marked
# read-only): run it this once, run it and allow it for the rest of the session, or refuse it.
Approval = ApprovalDecision


@dataclass(frozen=True)
class ApprovalRequest:
    """What is asked: a shell command, or (`tool` set: `mcp:server/tool`) an MCP tool call,
    `command` then saying the tool and its arguments; "always" allows the whole tool.
    `turn_id`: the turn the call (`site`) belongs to. `reason`: why a command that
    matched the allowlist still asks (an argument pointing outside the workspace), else "".
    `sandbox`: the sandbox a shell command would run in (None for an MCP tool call)."""

    site: CallSite
    command: str
    tool: str | None = None
    turn_id: str = ""
    reason: str = ""
    sandbox: SandboxUse | None = None


# Asked before running a shell command that is not allow-listed, or an MCP tool call.
Approver = Callable[[ApprovalRequest], Awaitable[Approval]]

# Applies a whole-file edit through the editor (so undo and dirty buffers work).
# Arguments: the call site, absolute path, new full text. Returns True when the editor
# applied it; False means "no editor": the engine then writes the file to disk itself.
EditApplier = Callable[[CallSite, Path, str], Awaitable[bool]]

# Reads a file through the editor (its unsaved text). None means "not through the
# editor": the engine reads the workspace (open buffers, else the disk).
TextReader = Callable[[CallSite, Path], Awaitable[str | None]]


@dataclass(frozen=True)
class CommandRequest:
    """An approved shell command to run in `cwd`, killed after `timeout_s`."""

    site: CallSite
    command: str
    cwd: Path
    timeout_s: float


@dataclass(frozen=True)
class CommandRun:
    """What a command run by the editor produced (`exit_code` None when killed)."""

    output: str
    exit_code: int | None
    timed_out: bool = False


# Runs a command in the editor's terminal. None means "no terminal": the engine runs it.
CommandRunner = Callable[[CommandRequest], Awaitable[CommandRun | None]]


class FixTarget:
    """A diagnostic to fix (from the `cairn.fix` command): its file and the diagnostic."""

    def __init__(self, path: Path, diagnostic: Diagnostic) -> None:
        self.path = path
        self.diagnostic = diagnostic


class EngineApi(Protocol):
    workspace: Workspace

    @property
    def settings(self) -> Settings:
        """The current settings (changed only through `update_settings`)."""
        ...

    @property
    def active_session_id(self) -> str: ...

    def check_turn(self, session_id: str | None = None, model: str | None = None) -> None:
        """Raise the `ModelError` a turn would fail with before any request (no model
        configured, its key variable unset), recording nothing."""
        ...

    async def turn(
        self,
        message: str,
        *,
        session_id: str | None = None,
        mode: Mode | None = None,
        references: Sequence[str] = (),
        model: str | None = None,
        fix: FixTarget | None = None,
    ) -> TurnResult:
        """Run one turn to its end. Cancelling the awaiting task cancels the turn
        (finishReason "cancelled", partial output recorded, session usable)."""
        ...

    async def context_stats(self, session_id: str | None = None) -> ContextStats:
        """The next call's stats; the last figure (`stale`) while that build would wait for
        other work, the fresh one then sent through `on_context_stats`."""
        ...

    async def context_manifest(
        self,
        session_id: str | None = None,
        message: str | None = None,
        uri: str | None = None,
        references: Sequence[str] = (),
    ) -> Manifest:
        """With `message` (or `references`): a dry run (the manifest the next call would
        get, with the message's `@` mentions and `references` referenced). Without: the
        last recorded manifest of the session (or a dry run with an empty message)."""
        ...

    def goal_tree(self, session_id: str | None = None) -> GoalTreeView: ...

    async def goal_async(
        self,
        session_id: str | None = None,
        *,
        add: str | None = None,
        done: str | None = None,
        abandon: str | None = None,
        focus: str | None = None,
    ) -> GoalTreeView:
        """Exactly one verb. Notifies `on_goal_tree_changed` after the change. A finished
        goal's fold is measured off the event loop."""
        ...

    async def compact(self, session_id: str | None = None) -> CompactResult: ...

    def sessions(self) -> list[SessionInfo]: ...

    def new_session(self) -> str:
        """Create an empty session, make it the active one and return its id. It is
        written by its first record: a prompt that fails before any model call (see
        `turn`) leaves no session behind."""
        ...

    def session_meta(self, session_id: str) -> SessionMeta:
        """The session's record: title, times, cumulative usage and cost, turns."""
        ...

    def messages(self, session_id: str) -> list[Message]:
        """Every message of the session in order (the full record, compaction markers too)."""
        ...

    def fork(self, session_id: str, at_message_id: str | None = None) -> str: ...

    def delete_session(self, session_id: str) -> None: ...

    def transcript(self, session_id: str | None = None) -> Transcript:
        """The session's turns as the editor's chat shows them, read from the trace."""
        ...

    async def restore(
        self, session_id: str, turn_id: str, *, files: bool = True, conversation: bool = False
    ) -> RestoreResult:
        """Back to before turn `turn_id`: its and every later turn's recorded file changes
        undone (`files`), and/or a fork of the conversation before it (`conversation`).
        All or nothing: a file changed since is an error naming it, and nothing is
        written. Not while a turn of the session runs."""
        ...

    def models(self) -> ModelCatalog:
        """The configured model and the providers and models one can choose from."""
        ...

    def files_changed(self, paths: Sequence[Path]) -> None:
        """Files were created, changed or deleted outside the agent (the editor's file
        watcher, a save). Cheap: the paths are recorded and applied once before the next
        context build, so glob/grep, `@dir` listings, the repository map, the rules files
        and the project profile see them; a burst of events costs one file listing."""
        ...

    def warm(self) -> None:
        """Prepare what every first context needs and no request changes: the file listing
        and the repository map's index (a cold scan of a large repository takes seconds).
        Blocking: the language server runs it on a thread before it hands the engine out."""
        ...

    def project_profile(self, refresh: bool = False) -> ProjectProfile: ...

    async def project_profile_async(self, refresh: bool = False) -> ProjectProfile:
        """`project_profile` off the event loop (after a running context build's gather)."""
        ...

    def set_folders(self, folders: Sequence[Path]) -> None:
        """Serve these workspace folders from the next context build on; the first one
        stays the root (where `.cairn/` and `cairn.toml` live) and must not change."""
        ...

    def update_settings(self, settings: Settings) -> None: ...

    def set_mcp_servers(
        self, session_id: str | None, servers: Mapping[str, McpServerSettings]
    ) -> None:
        """The MCP servers of one session only (e.g. an ACP client's `mcpServers`), beside
        those of the settings; started when a turn of the session needs them, stopped when
        a later call leaves them out or the session is deleted."""
        ...

    async def mcp_servers(self, session_id: str | None = None) -> list[ServerStatus]:
        """Every MCP server of the session, started now if needed (each waited for up to its
        startup timeout): state, reason, tools."""
        ...

    def mcp_report(self, session_id: str | None = None) -> McpReport:
        """Every MCP server of the session as it is now (starting none): state and why, how
        its last process ended, its tools with their schema tokens and hints, and whether
        their schemas are deferred behind `tool_search` (the shape of `cairn mcp list
        --json` and of the editor's `cairn/mcpStatus`)."""
        ...

    async def mcp_control(
        self, name: str, action: McpAction, session_id: str | None = None
    ) -> McpReport:
        """The user's action on one MCP server: `restart` it now (a failed one too),
        `disable` it (stopped and left out until `enable` or the engine ends), `enable` it;
        the report after it. An unknown name is an `InvalidRequestError`."""
        ...

    def close(self) -> None:
        """Release trace locks and background tasks; ask MCP servers to stop."""
        ...

    async def aclose(self) -> None:
        """`close`, after stopping the MCP servers and waiting for their processes to end."""
        ...
