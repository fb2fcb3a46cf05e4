"""The engine's waits as `ProgressEvent`s: the map's scan, MCP servers starting, retries.

- `MapProgress` is the repository map's scan callback (`RepoMap.progress`,
  called as `(done, total)` while a refresh scans many files): begin, a report
  per batch, end. The session it serves is the one whose turn set
  `current_session` (None while an engine warms up).
- `started_catalog` starts a turn's MCP servers (`McpHub.catalog`) between a
  begin naming the servers not yet started and an end saying how many are
  ready; nothing when all were started before.
- `retry_progress` is a model call's wait before it is retried, with the
  seconds left (`TurnLoop` begins it on a retry and ends it on the next event).
"""

from __future__ import annotations

from contextvars import ContextVar

from cairn.agent.api import EngineListener
from cairn.mcp import McpCatalog, McpHub
from cairn.models.progress import ProgressEvent, ProgressStage

MAP_TITLE = "Building the repository map"
MCP_TITLE = "Starting MCP servers"
RETRY_TITLE = "Waiting to retry the model call"
# The states of a server that `McpHub.catalog` will wait for.
STARTING_STATES = frozenset({"not started", "starting", "restarting"})

# The session whose turn runs in this context (set by the turn runner, read by `MapProgress`).
current_session: ContextVar[str | None] = ContextVar("cairn_current_session", default=None)


class MapProgress:
    """`(done, total)` of a map scan → `map` progress events to `listener`."""

    def __init__(self, listener: EngineListener) -> None:
        self.listener = listener

    def __call__(self, done: int, total: int) -> None:
        stage: ProgressStage = "begin" if done == 0 else "end" if done >= total else "report"
        message = f"{total:,} files scanned" if stage == "end" else f"{done:,} of {total:,} files"
        self.listener.on_progress(
            ProgressEvent(
                key="map",
                stage=stage,
                title=MAP_TITLE,
                message=message,
                done=done,
                total=total,
                session_id=current_session.get(),
            )
        )


async def started_catalog(hub: McpHub, session_id: str, listener: EngineListener) -> McpCatalog:
    """`hub.catalog(session_id)`, reported as an `mcp` wait when a server has to start."""
    waiting = [s.name for s in hub.snapshot(session_id).servers if s.state in STARTING_STATES]
    if not waiting:
        return await hub.catalog(session_id)

    def event(stage: ProgressStage, message: str, done: int | None = None) -> ProgressEvent:
        return ProgressEvent(
            key="mcp",
            stage=stage,
            title=MCP_TITLE,
            message=message,
            done=done,
            total=len(waiting),
            session_id=session_id,
        )

    listener.on_progress(event("begin", ", ".join(waiting)))
    catalog = await hub.catalog(session_id)
    ready = sum(1 for s in catalog.servers if s.name in waiting and s.state == "ready")
    listener.on_progress(event("end", f"{ready} of {len(waiting)} ready", ready))
    return catalog


def retry_progress(
    stage: ProgressStage, session_id: str, message: str | None = None, wait_s: float | None = None
) -> ProgressEvent:
    """A step of a model call's wait before its retry."""
    return ProgressEvent(
        key="retry",
        stage=stage,
        title=RETRY_TITLE,
        message=message,
        wait_s=wait_s,
        session_id=session_id,
    )
