"""The goal side of the engine facade (`EngineGoals`, a base of `Engine`): the user's verbs.

The editor reads the session's goal tree and changes it with one verb at a
time (`cairn.agent.sessions.goal_ops`). A goal the user finishes (`done`,
`abandon`) is folded into its summary now when no turn of the session runs
and a model is set, else during the next turn. `goal_async` measures the fold
off the event loop (gathers and assemblies on worker threads, the session's
turns waiting for it), so the front ends answer other requests and cancels
meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from cairn.agent.compaction.compactor import Compactor
from cairn.agent.listener import SafeListener
from cairn.agent.scope.inputs import TurnInputs
from cairn.agent.scope.turn_scope import TurnScope
from cairn.agent.sessions.goal_ops import change_goal
from cairn.agent.sessions.session import PendingFold, Session
from cairn.goals import one_verb
from cairn.mcp import McpCatalog
from cairn.models.events import GoalTreeView

VERBS = ("add", "done", "abandon", "focus")


class EngineGoals:
    """What `Engine` does with the user's goal verbs (see the module docstring)."""

    listener: SafeListener
    compactor: Compactor

    def session(self, session_id: str | None = None) -> Session: ...

    def model_of(self, session: Session | None, explicit: str | None = None) -> str | None: ...

    def _inputs(self, model: str | None) -> TurnInputs: ...

    def scope(
        self,
        session: Session,
        inputs: TurnInputs,
        edited: Iterable[Path] = (),
        catalog: McpCatalog | None = None,
    ) -> TurnScope: ...

    def goal_tree(self, session_id: str | None = None) -> GoalTreeView:
        return self.session(session_id).goal_view()

    async def goal_async(
        self,
        session_id: str | None = None,
        *,
        add: str | None = None,
        done: str | None = None,
        abandon: str | None = None,
        focus: str | None = None,
    ) -> GoalTreeView:
        """One verb of the user's; a finished goal's fold is measured off the event loop while
        the session's turns wait for it (a cancelled request leaves the fold to the next turn)."""
        session, fold = self._change_goal(session_id, add, done, abandon, focus)
        if fold is not None and (model := self._folds_now(session, fold)) is not None:
            async with session.turn_lock:
                try:
                    await self.compactor.fold_async(self.scope(session, self._inputs(model)), fold)
                except asyncio.CancelledError:
                    session.pending_folds.append(fold)
                    raise
        return session.goal_view()

    def _change_goal(
        self, session_id: str | None, *verbs: str | None
    ) -> tuple[Session, PendingFold | None]:
        """Apply the one verb given (saved, notified); the fold it calls for, if any."""
        verb, text = one_verb(dict(zip(VERBS, verbs, strict=True)))
        session = self.session(session_id)
        return session, change_goal(session, self.listener, verb, text, by_user=True)

    def _folds_now(self, session: Session, fold: PendingFold) -> str | None:
        """The model to measure `fold` for now; None when it waits for the next turn (one runs
        now, or no model is set)."""
        model = self.model_of(session)
        if session.turn_lock.locked() or model is None:
            session.pending_folds.append(fold)  # folded during the next turn
            return None
        return model
