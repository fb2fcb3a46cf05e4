"""Building a session's context for a model call (the turn loop's view of the builder).

Wraps `ContextBuilder` with what the engine knows: the session's history and
goals, the mode's tool schemas, the files in play and the fix target. Also
measures the *demand* of a context, the tokens of every candidate block
whether or not it fit, which is what compaction decisions compare with the
window (a context that had to drop history is an overflow).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.agent.inputs import TurnInputs, files_in_play, fix_block
from cairn.agent.session import Session
from cairn.agent.tools import ToolRegistry
from cairn.context.builder import BuiltContext, ContextBuilder, ContextRequest
from cairn.context.sources.mode import MODE_TOOLS
from cairn.files.sync import FileSync
from cairn.files.workspace import Workspace
from cairn.models.messages import Message
from cairn.settings import Settings


@dataclass(frozen=True)
class Demand:
    """Tokens the next call wants, whether they did not all fit, and the call's budget."""

    tokens: int
    overflow: bool
    window: int
    available: int


def demand_of(built: BuiltContext) -> Demand:
    blocks = built.manifest.blocks
    wanted = sum(b.tokens for b in blocks) + built.stats.tool_schema_tokens
    dropped = any(not b.included and b.source in ("history", "summary") for b in blocks)
    return Demand(
        tokens=wanted,
        overflow=dropped,
        window=built.stats.context_window,
        available=built.stats.available_input,
    )


class Contexts:
    """Builds contexts for the sessions of one engine."""

    def __init__(
        self,
        workspace: Workspace,
        settings: Settings,
        builder: ContextBuilder,
        registry: ToolRegistry,
        files: FileSync | None = None,
    ) -> None:
        self.workspace = workspace
        self.settings = settings
        self.builder = builder
        self.registry = registry
        self.files = files

    def tool_names(self, inputs: TurnInputs) -> list[str]:
        """The turn's tools, or the mode's allowlist (`MODE_TOOLS`) the registry has."""
        if inputs.tools is not None:
            return list(inputs.tools)
        return [name for name in MODE_TOOLS[inputs.mode] if self.registry.get(name) is not None]

    def build(
        self,
        session: Session,
        inputs: TurnInputs,
        *,
        messages: Sequence[Message] | None = None,
    ) -> BuiltContext:
        """The context of the next call (over `messages` when given, else the trace's).

        File events and editor buffers that arrived since the last build are applied first.
        """
        if self.files is not None:
            self.files.sync()
        history = list(messages) if messages is not None else session.messages()
        extra = [fix_block(self.workspace, inputs.fix, inputs.model)] if inputs.fix else []
        request = ContextRequest(
            session_id=session.id,
            model=inputs.model,
            mode=inputs.mode,
            goals=session.goals(),
            history=history,
            user_message=inputs.user_message,
            references=list(inputs.references),
            files_in_play=files_in_play(self.workspace, inputs),
            extra_blocks=extra,
            tool_schemas=self.registry.schemas(self.tool_names(inputs)),
            store_artifact=session.trace.write_artifact,
        )
        built = self.builder.build(request)
        built.stats.compaction.in_progress = session.compacting
        return built

    def demand(
        self, session: Session, inputs: TurnInputs, messages: Sequence[Message] | None = None
    ) -> Demand:
        return demand_of(self.build(session, inputs, messages=messages))
