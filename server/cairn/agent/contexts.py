"""Building a session's context for a model call (the turn loop's view of the builder).

Wraps `ContextBuilder` with what a `TurnScope` knows: the session's history
and goals, the schemas of the tools the turn offers, the files in play (the
open buffers, the turn's references and edits) and the fix target. The
turn, the compactor, the editor's dry run and `cairn context` all build
through `Contexts.build`, so a dry run is the context of a real call. A
read-only `Contexts` stores no artifact (a degraded block's full text is
then not kept). A window a provider reported for the session's model (by
refusing a longer request) caps the budget of every later build; an explore
branch on its own model builds for that model's window. Also
measures the *demand* of a context, the tokens of every candidate block
whether or not it fit, which is what compaction decisions compare with the
window (a context that had to drop history is an overflow).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.agent.inputs import TurnInputs, files_in_play, fix_block
from cairn.agent.scope import TurnScope
from cairn.agent.session import Session
from cairn.agent.tools import ToolRegistry
from cairn.context.budget import role_window
from cairn.context.builder import BuiltContext, ContextBuilder, ContextRequest
from cairn.errors import CairnError
from cairn.files.sync import FileSync
from cairn.files.workspace import Workspace
from cairn.models.messages import Message


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


def _known_limit(session: Session, model: str) -> int | None:
    """The window the provider reported for `model` in this session (none for a new session)."""
    try:
        return session.context_limit(model)
    except CairnError:  # a dry run's session that was never created
        return None


class Contexts:
    """Builds contexts for the sessions of one engine."""

    def __init__(
        self,
        workspace: Workspace,
        builder: ContextBuilder,
        registry: ToolRegistry,
        files: FileSync | None = None,
        *,
        read_only: bool = False,
    ) -> None:
        self.workspace = workspace
        self.builder = builder
        self.registry = registry
        self.files = files
        self.read_only = read_only

    def build(self, scope: TurnScope, *, messages: Sequence[Message] | None = None) -> BuiltContext:
        """The context of the scope's next call (over `messages` when given, else the trace's).

        File events and editor buffers that arrived since the last build are applied first.
        """
        if self.files is not None:
            self.files.sync()
        session, inputs = scope.session, scope.inputs
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
            files_in_play=files_in_play(self.workspace, inputs, scope.edited),
            extra_blocks=extra,
            tool_schemas=self.registry.schemas(scope.tools),
            store_artifact=None if self.read_only else session.trace.write_artifact,
            window_limit=_known_limit(session, inputs.model),
            role_window=self._role_window(inputs),
        )
        built = self.builder.build(request)
        built.stats.compaction.in_progress = session.compacting
        return built

    def _role_window(self, inputs: TurnInputs) -> int | None:
        """A branch on another model than the main one builds for that model's own window."""
        if inputs.main_model == inputs.model:
            return None
        return role_window(inputs.model, inputs.main_model, self.builder.settings)

    def demand(self, scope: TurnScope, messages: Sequence[Message] | None = None) -> Demand:
        return demand_of(self.build(scope, messages=messages))
