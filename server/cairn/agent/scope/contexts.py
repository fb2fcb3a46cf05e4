"""Building a session's context for a model call (the turn loop's view of the builder).

Wraps `ContextBuilder` with what a `TurnScope` knows: the session's history
and goals, the tools the turn offers (their schemas, and one manifest line
for every tool it knows: offered, deferred or refused), the files in play (the
open buffers, the turn's references and edits) and the fix target, and the
session's prompt-cache state (`SessionCache`). A build is a gather (the
only I/O) and an assembly (pure). When the caller is async both run on a
worker thread, so no input however large keeps the event loop from answering
a cancel or another request during a build: the file events and changed
buffers are taken on the loop and applied to the map on the worker before
the gather (over a copy of the editor state), and the assembly's cache view
is read on the loop before the worker assembles. The turn, the compactor, the
editor's dry run and `cairn context` all go through here, so a dry run is
the context of a real call.

The session's prompt-cache state is read and kept by `PromptCache`
(`cairn.agent.scope.prompt_cache`): a build reads it, `commit` after a real
call keeps what was sent. A read-only `Contexts` stores no artifact (a degraded block's
full text is then not kept). A window a provider reported for the
session's model (by refusing a longer request) caps the budget of every
later build; an explore branch on its own model builds for that model's
window. Also measures the *demand* of a context, the
tokens of every candidate block whether or not it fit, which is what
compaction decisions compare with the window (a context that had to drop
history is an overflow).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar, cast

from cairn.agent.scope.inputs import TurnInputs, files_in_play, fix_block, seen_in_play
from cairn.agent.scope.offer import WindowTerms
from cairn.agent.scope.prompt_cache import PromptCache
from cairn.agent.scope.turn_scope import TurnScope
from cairn.agent.sessions.session import Session
from cairn.context.budget import role_window
from cairn.context.builder import BuiltContext, ContextBuilder, GatherRequest
from cairn.context.history import turn_user_message_id
from cairn.context.snapshot import ContextSnapshot
from cairn.errors import CairnError
from cairn.files.sync import FileSync, SyncWork
from cairn.files.workspace import Workspace
from cairn.llm.cache_hints import model_cache_price
from cairn.models.messages import Message
from cairn.models.session import Usage
from cairn.settings import SettingsRef
from cairn.tokens.calibration import Calibrations

T = TypeVar("T")
# Called on a build's worker thread when its gather has to wait for another one.
Waiting = Callable[[], None] | None


@dataclass(frozen=True)
class Demand:
    """Tokens the next call wants, whether they did not all fit, and the call's budget."""

    tokens: int
    overflow: bool
    window: int
    available: int


def demand_of(built: BuiltContext) -> Demand:
    blocks = [b for b in built.manifest.blocks if b.zone != "tools"]
    wanted = sum(b.tokens for b in blocks) + built.stats.tool_schema_tokens
    dropped = any(not b.included and b.source in ("history", "summary") for b in blocks)
    return Demand(
        tokens=wanted,
        overflow=dropped,
        window=built.stats.context_window,
        available=built.stats.available_input,
    )


async def off_loop(work: Callable[..., T], *args: object) -> T:
    """`work(*args)` on a daemon thread of its own (the caller's context variables set), awaited.

    Unlike `asyncio.to_thread`, whose threads the interpreter waits for at exit, a build
    still running when the server stops (SIGTERM, the client gone) does not delay its exit:
    what a build writes goes through atomic replaces. A cancelled caller leaves the
    thread to finish on its own; its result is dropped."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(cast(T, result))

    def run() -> None:
        try:
            result, error = context.run(work, *args), None
        except BaseException as exc:  # handed to the awaiting task
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="cairn-build", daemon=True).start()
    return await future


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
        config: SettingsRef,
        files: FileSync | None = None,
        *,
        read_only: bool = False,
        calibrations: Calibrations | None = None,
    ) -> None:
        self.workspace = workspace
        self.builder = builder
        # The engine's shared settings: every read is `config.current`.
        self.config = config
        self.files = files
        self.read_only = read_only
        self.cache = PromptCache(
            workspace, config, calibrations or Calibrations(None), read_only=read_only
        )
        # One gather at a time, and no file sync during one: the repository map and the
        # profile are not thread-safe. Syncs taken on the loop wait here for the next gather.
        self._gather_lock = threading.Lock()
        self._taken: deque[SyncWork] = deque()

    # -- gathering ---------------------------------------------------------------

    @property
    def gathering(self) -> bool:
        """Whether a gather (or a file sync) runs now: another build would wait for it."""
        return self._gather_lock.locked()

    def request(
        self, scope: TurnScope, messages: Sequence[Message] | None, *, preamble: bool
    ) -> GatherRequest:
        """What the scope's next call depends on (over `messages` when given, else the trace's)."""
        session, inputs = scope.session, scope.inputs
        history = list(messages) if messages is not None else session.messages()
        extra = [fix_block(self.workspace, inputs.fix, inputs.model)] if inputs.fix else []
        own_edits = set(scope.edit_log.paths)
        edited = [p for p in scope.edited if self.workspace.relative(p) in own_edits]
        active = self.config.current.active_buffers
        shown = files_in_play(self.workspace, inputs, scope.edited, active=active)
        return GatherRequest(
            session_id=session.id,
            model=inputs.model,
            mode=inputs.mode,
            goals=session.goals(),
            history=tuple(history),
            user_message=inputs.user_message,
            user_message_id=turn_user_message_id(history, session.current_turn_id),
            references=tuple(inputs.references),
            files_in_play=tuple(shown),
            seen_files=tuple(seen_in_play(shown, scope.seen)),
            edited=tuple(edited),
            extra_blocks=tuple(extra),
            tools=tuple(scope.offer.lines()),
            preamble=preamble,
            window_limit=_known_limit(session, inputs.model),
            role_window=self._role_window(inputs),
            calibration=self.cache.calibration(scope),
            cache_read=model_cache_price(self.config.current, inputs.model).read,
        )

    def _gather(
        self, request: GatherRequest, workspace: Workspace | None, on_wait: Waiting = None
    ) -> ContextSnapshot:
        """Every file event and buffer taken so far applied, in order, then the gather: one at
        a time, since the repository map and the profile are not thread-safe. `on_wait` is
        called (on this thread) when another gather runs, before waiting for it."""
        if not self._gather_lock.acquire(blocking=False):
            if on_wait is not None:
                on_wait()
            self._gather_lock.acquire()
        try:
            self._apply_taken()
            return self.builder.gather(request, workspace)
        finally:
            self._gather_lock.release()

    def _apply_taken(self, *, refresh: bool = False) -> None:
        """Apply the syncs taken so far, in order, after a full refresh when asked (the
        caller holds the gather lock)."""
        works = [self._taken.popleft() for _ in range(len(self._taken))]
        if self.files is None:
            return
        if refresh:
            self.files.apply(SyncWork(), refresh=True)
        for work in works:
            self.files.apply(work)

    def _sync_now(self, refresh: bool) -> None:
        with self._gather_lock:
            self._apply_taken(refresh=refresh)

    def sync_files(self, *, refresh: bool = False) -> None:
        """Apply file events and changed buffers now (`refresh`: re-list the root folder and
        re-stat the map's files, for clients without a file watcher), on this thread."""
        self._take()
        self._sync_now(refresh)

    async def sync_files_async(self, *, refresh: bool = False) -> None:
        """`sync_files` on a worker thread (the changed buffers taken on this one)."""
        self._take()
        await off_loop(self._sync_now, refresh)

    async def exclusive_async(self, work: Callable[[], T]) -> T:
        """`work()` on a worker thread once no gather runs and the file events and buffers
        taken so far are applied (for other readers of the map and the profile)."""
        self._take()

        def exclusive() -> T:
            with self._gather_lock:
                self._apply_taken()
                return work()

        return await off_loop(exclusive)

    def _take(self) -> None:
        """Take the file events and changed buffers the next gather applies (on this thread)."""
        if self.files is not None:
            self._taken.append(self.files.take())

    def gather(
        self,
        scope: TurnScope,
        messages: Sequence[Message] | None = None,
        *,
        preamble: bool | None = None,
    ) -> ContextSnapshot:
        """The snapshot of the scope's next call, read on this thread (file events applied first)."""
        self._take()
        return self._gather(self._request(scope, messages, preamble), None)

    async def gather_async(
        self,
        scope: TurnScope,
        messages: Sequence[Message] | None = None,
        *,
        preamble: bool | None = None,
        on_wait: Waiting = None,
    ) -> ContextSnapshot:
        """`gather` on a worker thread, over a copy of the editor state taken on this one
        (`on_wait`: called on the worker when it has to wait for another gather)."""
        self._take()
        request = self._request(scope, messages, preamble)
        return await off_loop(self._gather, request, self.workspace.copy(), on_wait)

    def _request(
        self, scope: TurnScope, messages: Sequence[Message] | None, preamble: bool | None
    ) -> GatherRequest:
        """The request of the scope's next call (a fresh preamble when `preamble`, else as
        the prompt cache wants)."""
        fresh = self.cache.wants_preamble(scope) if preamble is None else preamble
        return self.request(scope, messages, preamble=fresh)

    # -- assembling ----------------------------------------------------------------

    def assemble(self, scope: TurnScope, snapshot: ContextSnapshot) -> BuiltContext:
        """The call's context from `snapshot` and the session's cache state (no I/O)."""
        return self._assembled(scope, self._assembly(scope, snapshot)())

    async def assemble_async(self, scope: TurnScope, snapshot: ContextSnapshot) -> BuiltContext:
        """`assemble` on a worker thread (the cache view read on this one)."""
        return self._assembled(scope, await off_loop(self._assembly(scope, snapshot)))

    def _assembly(self, scope: TurnScope, snapshot: ContextSnapshot) -> Callable[[], BuiltContext]:
        """The pure assembly of `snapshot`, with what it reads of the session taken now (the
        builder's shared parts, the redactor and the token counts, are thread-safe)."""
        store = None if self.read_only else scope.session.trace.write_artifact
        return partial(self.builder.assemble, snapshot, self.cache.view(scope, snapshot), store)

    @staticmethod
    def _assembled(scope: TurnScope, built: BuiltContext) -> BuiltContext:
        built.stats.compaction.in_progress = scope.session.compacting
        return built

    def window_terms(self, session: Session, inputs: TurnInputs) -> WindowTerms:
        """What the builds of `session` for `inputs` know of the model's window beyond the
        settings (for the turn's tool offer: its share of the input is measured the same way)."""
        return WindowTerms(
            window_limit=_known_limit(session, inputs.model),
            role_window=self._role_window(inputs),
            calibration=self.cache.calibrations.get(inputs.model).factor,
        )

    def _role_window(self, inputs: TurnInputs) -> int | None:
        """A branch on another model than the main one builds for that model's own window."""
        if inputs.main_model == inputs.model:
            return None
        return role_window(inputs.model, inputs.main_model, self.config.current)

    def build(self, scope: TurnScope, *, messages: Sequence[Message] | None = None) -> BuiltContext:
        """The context of the scope's next call, gathered on this thread (a dry run)."""
        return self.assemble(scope, self.gather(scope, messages))

    async def build_async(self, scope: TurnScope, on_wait: Waiting = None) -> BuiltContext:
        """The context of the scope's next call, built off the event loop (a dry run;
        `on_wait`: see `gather_async`)."""
        snapshot = await self.gather_async(scope, on_wait=on_wait)
        return await self.assemble_async(scope, snapshot)

    # -- a real call -----------------------------------------------------------------

    async def prepare(self, scope: TurnScope) -> tuple[ContextSnapshot, BuiltContext]:
        """Gather and assemble a real call's context, and record what it attached."""
        snapshot = await self.gather_async(scope)
        scope.session.cache.snapshot = snapshot
        return snapshot, await self.assemble_async(scope, snapshot)

    def record_attachments(self, scope: TurnScope, built: BuiltContext) -> None:
        """Record the attachments a real call renders, so later calls read them from history."""
        if built.attachments and not self.read_only:
            scope.session.append("system", list(built.attachments), use_focus=False)
            built.attachments = []

    def commit(
        self,
        scope: TurnScope,
        built: BuiltContext,
        usage: Usage | None,
        *,
        reported: bool = False,
    ) -> None:
        """After a real call: keep what it sent for the next build (`PromptCache.commit`)."""
        self.cache.commit(scope, built, usage, reported=reported)
