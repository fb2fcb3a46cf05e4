"""What every tool shares: the context it runs in, its outcome, and its base class.

A tool is a pydantic model of its arguments (the model reads the JSON schema
made from it) and an async `run(args, ctx) -> ToolOutcome`. A tool reports a
problem the model can fix (a refused path, zero matches for `old`, a refused
command) by raising `ToolFailure`, or any `CairnError`; the registry turns
both into a failed outcome. Output too long for the context is kept whole in
a trace artifact and the model gets its head, error lines and tail, with the
artifact id and the exact `read_file` call for the lines left out.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from cairn.agent.api import Approver, CallSite, CommandRunner, EditApplier, TextReader
from cairn.agent.listener import SafeListener
from cairn.agent.sessions.session import Session
from cairn.agent.tools.processes import ProcessGroups
from cairn.context.excerpt import ExcerptShape, fitting_excerpt
from cairn.errors import CairnError
from cairn.files.ignore import IgnoreRules
from cairn.files.workspace import Workspace
from cairn.mcp import McpCatalog, McpToolSpec
from cairn.settings import Settings, SettingsRef

if TYPE_CHECKING:
    from cairn.agent.tools.explore import ExploreArgs

# Longest tool output (characters) handed to the model inline; longer goes to an artifact.
MAX_INLINE_OUTPUT_CHARS = 24_000
# What the model still sees of a longer output (fewer lines when they do not fit):
# lines from the head and the tail, and the error lines between them ...
OUTPUT_EXCERPT = ExcerptShape(head=150, tail=100, max_errors=100)
# ... each cut to this many characters (minified code); the artifact keeps them whole.
MAX_LINE_CHARS = 2_000
# Files one search or listing brings into play at most (the first ones it shows).
MAX_SEEN_PER_CALL = 20


class ArtifactStore(Protocol):
    """The part of a `Trace` tools use: storing and reading large outputs."""

    def write_artifact(self, content: str | bytes, kind: str = "text") -> str: ...
    def read_artifact(self, artifact_id: str) -> bytes: ...


class ToolOfferView(Protocol):
    """The part of a turn's tool offer tools use: its MCP servers and the deferred tools
    `tool_search` may reveal (`cairn.agent.scope.offer.ToolOffer` is one)."""

    @property
    def catalog(self) -> McpCatalog: ...
    @property
    def deferred(self) -> Sequence[McpToolSpec]: ...
    def reveal(self, specs: Iterable[McpToolSpec]) -> None: ...


class ToolScope(Protocol):
    """The part of a turn tools use (`cairn.agent.scope.turn_scope.TurnScope` is one).

    A protocol, so the tools room does not import the rooms above it: the session the
    call acts on, the listener goal changes go to, whether the turn is read-only, the
    session the editor knows it by, its tool offer, and its explore runner (None where
    the turn cannot explore)."""

    @property
    def session(self) -> Session: ...
    @property
    def listener(self) -> SafeListener: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def editor_session_id(self) -> str | None: ...
    @property
    def offer(self) -> ToolOfferView: ...
    @property
    def explore(self) -> Callable[[ExploreArgs], Awaitable[str]] | None: ...


class ToolFailure(CairnError):
    """A tool could not do what was asked; the message is shown to the model."""


@dataclass
class ToolContext:
    """Everything a tool may touch. The engine builds one per turn (or explore branch).

    `config` is the engine's shared settings (`settings` reads the current ones).
    `approve` asks the user about a command outside `allowed_commands`; without one
    such commands are refused. `interactive` says whether a person is there to ask
    (the engine sets it with the approver; tools only read `approve`). `scope` is
    the turn the call belongs to: the `goal` and `explore` tools act on its session
    and explorer; None outside a turn (then those two are unavailable). The editor's
    side, where one is attached: `read_editor` reads its (unsaved) text, `apply_edit`
    writes through it, `run_in_editor` runs commands in its terminal; each is told
    the `site` (session and `call_id`, which the tool runner sets before each call).
    `processes` is the engine's registry of running command process groups
    (`run_command` registers each command it runs here while it runs).
    """

    workspace: Workspace
    config: SettingsRef
    trace: ArtifactStore | None = None
    ignore: IgnoreRules | None = None
    approve: Approver | None = None
    apply_edit: EditApplier | None = None
    read_editor: TextReader | None = None
    run_in_editor: CommandRunner | None = None
    scope: ToolScope | None = None
    allowed_commands: list[str] = field(default_factory=list)
    interactive: bool = False
    call_id: str | None = None
    processes: ProcessGroups = field(default_factory=ProcessGroups)
    # Commands the user answered "always" to: they run again as exactly that text.
    approved_commands: list[str] = field(default_factory=list)
    _folder_rules: dict[Path, IgnoreRules] = field(default_factory=dict, init=False, repr=False)
    # The content hash of each file (workspace-relative name) as the model last read or
    # wrote it in this turn (`cairn.agent.tools.file_text`).
    seen_hashes: dict[str, str] = field(default_factory=dict, init=False, repr=False)

    @property
    def settings(self) -> Settings:
        """The engine's current settings."""
        return self.config.current

    @property
    def site(self) -> CallSite:
        """The session and tool call the editor callbacks serve."""
        scope = self.scope
        session_id = "" if scope is None else scope.editor_session_id or scope.session.id
        return CallSite(session_id=session_id, call_id=self.call_id)

    async def editor_text(self, path: Path) -> str | None:
        """The editor's text of `path` when it serves reads (an ACP client), else None."""
        if self.read_editor is None:
            return None
        return await self.read_editor(self.site, path)

    async def write_in_editor(self, path: Path, text: str) -> bool:
        """Write `text` as the whole of `path` through the editor; False when there is none."""
        return self.apply_edit is not None and await self.apply_edit(self.site, path, text)

    def allow_always(self, command: str) -> None:
        """The user allowed `command` for the rest of the session (kept in its record)."""
        if command not in self.allowed_commands:
            self.allowed_commands.append(command)
        if command not in self.approved_commands:
            self.approved_commands.append(command)
        if self.scope is not None:
            self.scope.session.allow_command(command)

    def rules_for(self, folder: Path) -> IgnoreRules:
        """The ignore rules of one workspace folder (`ignore` for its own folder, else loaded once)."""
        if self.ignore is not None and self.ignore.root == folder:
            return self.ignore
        rules = self._folder_rules.get(folder)
        if rules is None:
            rules = IgnoreRules.for_folder(folder)
            self._folder_rules[folder] = rules
        return rules

    def refresh_files(self) -> None:
        """Forget cached file lists (after an edit or a command changed the tree)."""
        if self.ignore is not None:
            self.ignore.refresh()
        for rules in self._folder_rules.values():
            rules.refresh()


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What a tool call produced: the text the model reads, and facts for the record."""

    output: str
    ok: bool = True
    artifact_id: str | None = None
    data: dict[str, Any] | None = None
    # Files (or folders) the call read, found matches in or listed: they come into play
    # (their rules, diagnostics, the map) from the next call of the turn.
    seen: tuple[Path, ...] = ()

    @classmethod
    def failure(cls, message: str) -> ToolOutcome:
        return cls(output=f"error: {message}", ok=False)


class ToolArgs(BaseModel):
    """Base of every tool's argument model: unknown keys are an error the model sees."""

    model_config = ConfigDict(extra="forbid")


ArgsT = TypeVar("ArgsT", bound=ToolArgs)


class Tool(ABC, Generic[ArgsT]):
    """One tool: its name, what the model is told about it, its arguments, its action."""

    name: ClassVar[str]
    description: ClassVar[str]
    args_model: type[ArgsT]

    @abstractmethod
    async def run(self, args: ArgsT, ctx: ToolContext) -> ToolOutcome:
        """Do the call; raise `ToolFailure` (or any `CairnError`) for a problem the model can fix."""

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema the model receives."""
        parameters = self.args_model.model_json_schema()
        parameters.pop("title", None)
        properties = parameters.get("properties", {})
        for key, prop in properties.items():
            properties[key] = _plain_optional(prop)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }


def _plain_optional(prop: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, null]` with `default: null` → just X (optional = not in `required`)."""
    prop.pop("title", None)
    options = prop.get("anyOf")
    if not isinstance(options, list):
        return prop
    concrete = [o for o in options if o != {"type": "null"}]
    if len(concrete) != 1 or len(concrete) == len(options):
        return prop
    plain = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
    return {**concrete[0], **plain}


def shorten_output(ctx: ToolContext, text: str, kind: str = "text") -> tuple[str, str | None]:
    """`text` when short; else its head, error lines and tail (`context.excerpt`, the one
    shortener) with the id of an artifact holding it all and the exact read_file range."""
    if len(text) <= MAX_INLINE_OUTPUT_CHARS:
        return text, None
    artifact_id = ctx.trace.write_artifact(text, kind) if ctx.trace is not None else None
    shown = fitting_excerpt(
        text,
        MAX_INLINE_OUTPUT_CHARS,
        len,
        OUTPUT_EXCERPT,
        artifact_id=artifact_id,
        max_line_chars=MAX_LINE_CHARS,
    )
    # Cannot happen (three clipped lines always fit); said plainly rather than asserted.
    fallback = f"[output of {len(text)} characters not shown; artifact {artifact_id}]"
    return (fallback if shown is None else shown), artifact_id
