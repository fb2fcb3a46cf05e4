"""A read-only engine on a workspace: the context the next model call would get, writing nothing.

`cairn context` asks it. It has the same context side as `Engine`
(`cairn.agent.parts`: workspace and open buffers, ignore rules, profile,
repository map with its index under `<trace_dir>/cache/`, builder, tools)
and builds through the same `Contexts.build` in a main-agent `TurnScope`,
so the dry run sees the same sources, the same mode tool filter and the
same repository map as a real call. It has no model runtime, no turns and
no compaction, and its parts store no artifact and never write the
profile document; a session given by id is only read. The one thing it
may write is the repository map's index (a cache, with the trace store's
`.gitignore` beside it), so the next `cairn context` starts warm.

Without a session the build is that of a new session: no history, the
session id `DRY_RUN_SESSION`. With or without one, the message sets the
plan's mission when the tree has none, as a real turn does before its first
call, so the dry run shows the plan block that call gets.
The configured MCP servers are never started (a dry run starts no process):
each is listed as not started in a dry run, its tools unknown.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from cairn.agent.listener import SafeListener
from cairn.agent.parts import context_parts
from cairn.agent.scope.inputs import TurnInputs
from cairn.agent.scope.offer import make_offer
from cairn.agent.scope.turn_scope import main_scope
from cairn.agent.sessions.session import Session, session_model
from cairn.context.builder import BuiltContext
from cairn.context.mentions import turn_references
from cairn.errors import NoModelError
from cairn.files.workspace import Workspace
from cairn.goals.replay import mission_of
from cairn.llm.guide import no_model_message
from cairn.mcp import McpCatalog, McpHub
from cairn.models.goals import GoalTree
from cairn.settings import Mode, Settings, SettingsRef
from cairn.trace import Trace

DRY_RUN_SESSION = "(dry run)"
# Where the new session of a dry run would live: never created (nothing is recorded in it),
# and hidden, so no listing of sessions could ever show it.
DRY_RUN_FOLDER = ".dry-run"
# Why a configured MCP server offers nothing in a dry run.
DRY_RUN_REASON = "in a dry run, so its tools are unknown"


class DryRunSession(Session):
    """A session only read: its goals are what the next turn's first call would see (the
    message sets the mission of a tree that has none, as a real turn does before calling)."""

    def __init__(self, trace: Trace, message: str) -> None:
        super().__init__(trace)
        self.message = message

    def goals(self) -> GoalTree:
        tree = super().goals()
        if not tree.mission and self.message.strip():
            tree.mission = mission_of(self.message)
        return tree


class ReadOnlyEngine:
    """The context side of an engine, for dry runs (see the module docstring)."""

    def __init__(self, folders: list[Path], settings: Settings) -> None:
        self.config = SettingsRef(settings)
        self.parts = context_parts(list(folders), self.config, read_only=True)
        self.mcp = McpHub(self.config, self.parts.workspace.root)

    def mcp_catalog(self) -> McpCatalog:
        """The configured servers, none started: each one's reason says its tools are unknown."""
        catalog = self.mcp.snapshot()
        servers = tuple(
            replace(status, reason=DRY_RUN_REASON) if status.state == "not started" else status
            for status in catalog.servers
        )
        return replace(catalog, servers=servers)

    @property
    def workspace(self) -> Workspace:
        """The workspace (open buffers here are in play, as an editor's are)."""
        return self.parts.workspace

    def _session(self, session_id: str | None, message: str) -> Session:
        store = self.parts.store
        if session_id is None:
            return DryRunSession(Trace(store.traces_dir / DRY_RUN_FOLDER, DRY_RUN_SESSION), message)
        return DryRunSession(store.open(session_id), message)

    def next_context(
        self,
        message: str = "",
        *,
        session_id: str | None = None,
        files: Sequence[Path] = (),
        references: Sequence[str] = (),
        model: str | None = None,
        mode: Mode | None = None,
    ) -> BuiltContext:
        """The context the next call would get: in `session_id` (a new session when None),
        with `message` as the user's, `references` and the message's `@` mentions
        referenced, and `files` in play beside the open buffers.

        The model is `model`, else the session's (`session_model`), else the settings';
        the mode is `mode`, else the settings'."""
        session = self._session(session_id, message)
        settings = self.config.current
        if session_id is not None:
            chosen = session_model(model, settings.model, session.meta())
        else:
            chosen = model or settings.model
        if chosen is None:
            raise NoModelError(no_model_message(os.environ))
        inputs = TurnInputs(
            model=chosen,
            mode=mode or settings.mode,
            user_message=message,
            references=turn_references(self.workspace, message, references),
            compaction_model=settings.compaction_model,
            explore_model=settings.explore_model,
        )
        offer = make_offer(
            self.parts.registry,
            inputs.mode,
            self.mcp_catalog(),
            model=inputs.model,
            settings=settings,
            window=self.parts.contexts.window_terms(session, inputs),
        )
        scope = main_scope(session, inputs, SafeListener(None), offer, None, edited=files)
        return self.parts.contexts.build(scope)
