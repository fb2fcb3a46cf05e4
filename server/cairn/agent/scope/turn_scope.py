"""One turn's scope: what the parts of a turn share, made once when the turn starts.

A `TurnScope` holds the session the turn runs in, its frozen `TurnInputs`,
the listener its events go to, the tools offered to the model (its
`ToolOffer`: built-in and MCP tools, and the deferred MCP tools
`tool_search` may reveal) and how the turn runs (its scripted-model lane,
read-only or not, with or without compaction, the explorer when it may
explore), plus what changes while it runs: the files it edited (in play for
the next context builds), the files and folders it read, searched into or
listed (in play for their rules, diagnostics and the map), the edit log its
patch is made from, and the tools `tool_search` revealed. The turn loop, the
tool runner, the compactor, the context builds and the `goal` / `explore`
tools all read the scope; no other object carries per-turn state.

`main_scope` is the main agent's (the engine also opens one for work on a
session between turns: a dry run, a goal the user finished, a forced
compaction; it offers the next turn's tools and has edited nothing);
`branch_scope` is an explore branch's: read-only (its offer is the parent's,
so its request repeats the parent's cached prefix; a call that is not
read-only is refused when it arrives: `cairn.agent.scope.branch`), no
compaction, no nested explore, nothing reported to the editor.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

from cairn.agent.listener import SafeListener
from cairn.agent.scope.inputs import TurnInputs
from cairn.agent.scope.offer import ToolOffer, builtin_offer, offered_tools
from cairn.agent.sessions.session import Session
from cairn.agent.sessions.snapshot import EditLog
from cairn.agent.tools import ToolRegistry
from cairn.agent.tools.explore import ExploreArgs
from cairn.agent.tools.tool_search import ToolCarry, called_in, found_in

__all__ = ["BranchExplorer", "TurnScope", "branch_scope", "main_scope", "offered_tools"]

# Files and folders a turn's reads, searches and listings bring into play, at most.
MAX_SEEN = 200


class BranchExplorer(Protocol):
    """What runs the `explore` tool's branches for a turn (`cairn.agent.turn.explore.Explorer`;
    a protocol, so the turn's state does not import the loop above it)."""

    async def explore(self, parent: TurnScope, args: ExploreArgs) -> str: ...


@dataclass(frozen=True)
class TurnScope:
    """Everything one turn's parts share (see the module docstring).

    Frozen: what the turn is and how it runs is fixed when it starts; only the
    edited files, the edit log and the tools `tool_search` revealed (containers)
    grow while it runs.
    """

    session: Session
    inputs: TurnInputs
    listener: SafeListener
    # The tools of this turn: the registry it runs them with, and which are offered.
    offer: ToolOffer
    # The names of the scripted model's lane: none for the main agent; an explore
    # branch's index, trace name and text (a script line may use any of them).
    lane: tuple[str, ...] = ()
    # No edits and no goal changes (explore branches).
    read_only: bool = False
    # Whether compaction runs before the turn's model calls.
    compact: bool = True
    # Runs the `explore` tool's branches; None where the turn cannot explore.
    explorer: BranchExplorer | None = None
    # The session the editor knows the turn by, when not its own (a branch: its parent's).
    editor_session_id: str | None = None
    # Files the turn edited, first edit first (files in play for the next builds).
    edited: list[Path] = field(default_factory=list)
    edit_log: EditLog = field(default_factory=EditLog)
    # Files the turn read, searched into or listed (folders too), first seen first: in play
    # for their rules, diagnostics and the map from the next build on (at most MAX_SEEN).
    seen: list[Path] = field(default_factory=list)

    @property
    def tools(self) -> tuple[str, ...]:
        """The tools offered on the next model call, in the order the model sees them."""
        return self.offer.offered()

    @property
    def explore(self) -> Callable[[ExploreArgs], Awaitable[str]] | None:
        """The `explore` tool's runner of branches from this turn; None where it cannot explore."""
        return None if self.explorer is None else partial(self.explorer.explore, self)

    def note_edited(self, paths: Iterable[Path]) -> None:
        """Add files a tool call edited (each once, in the order first edited)."""
        for path in paths:
            if path not in self.edited:
                self.edited.append(path)

    def note_seen(self, paths: Iterable[Path]) -> None:
        """Add files or folders a tool call read, searched into or listed (each once)."""
        for path in paths:
            if len(self.seen) >= MAX_SEEN:
                return
            if path not in self.seen:
                self.seen.append(path)


def main_scope(
    session: Session,
    inputs: TurnInputs,
    listener: SafeListener,
    tools: ToolOffer | ToolRegistry,
    explorer: BranchExplorer | None,
    edited: Iterable[Path] = (),
    carry: ToolCarry | None = None,
) -> TurnScope:
    """The scope of a main-agent turn: the offer made for it (or the mode's built-in tools
    of a registry) with the deferred tools the session's earlier searches found (`carry`:
    those the last call sent; at a cold cache only those called), compaction on."""
    offer = tools if isinstance(tools, ToolOffer) else builtin_offer(tools, inputs.mode)
    if offer.deferred:
        messages = session.messages()
        offer.carry_found(found_in(messages), called_in(messages), carry or ToolCarry())
    return TurnScope(
        session=session,
        inputs=inputs,
        listener=listener,
        offer=offer,
        explorer=explorer,
        edited=list(edited),
    )


def branch_scope(
    session: Session,
    inputs: TurnInputs,
    lane: tuple[str, ...],
    tools: ToolOffer | ToolRegistry,
    parent_id: str,
) -> TurnScope:
    """The scope of an explore branch: read-only (the offer given, a copy of the parent's;
    or the read-only built-in tools of a registry), its own lane, no compaction; the editor's
    callbacks (reads) serve it as the parent session `parent_id`."""
    offer = (
        tools
        if isinstance(tools, ToolOffer)
        else builtin_offer(tools, inputs.mode, read_only=True, explore=False)
    )
    return TurnScope(
        session=session,
        inputs=inputs,
        listener=SafeListener(None),
        offer=offer,
        lane=lane,
        read_only=True,
        compact=False,
        editor_session_id=parent_id,
    )
