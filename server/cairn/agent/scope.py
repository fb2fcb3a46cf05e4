"""One turn's scope: what the parts of a turn share, made once when the turn starts.

A `TurnScope` holds the session the turn runs in, its frozen `TurnInputs`,
the listener its events go to, the tools offered to the model and how the
turn runs (its scripted-model lane, read-only or not, with or without
compaction, the explorer when it may explore), plus what changes while it
runs: the files it edited (in play for the next context builds), the files
and folders it read, searched into or listed (in play for their rules,
diagnostics and the map) and the edit log its patch is made from. The turn
loop, the tool runner, the compactor, the context builds and the `goal` /
`explore` tools all read the scope; no other object carries per-turn state.

`main_scope` is the main agent's (the engine also opens one for work on a
session between turns: a dry run, a goal the user finished, a forced
compaction; it offers the next turn's tools and has edited nothing);
`branch_scope` is an explore branch's: read-only tools, no compaction, no
nested explore, nothing reported to the editor.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cairn.agent.inputs import TurnInputs
from cairn.agent.listener import SafeListener
from cairn.agent.session import Session
from cairn.agent.snapshot import EditLog
from cairn.agent.tools import READ_ONLY_TOOLS, Explore, ToolRegistry
from cairn.context.sources.mode import MODE_TOOLS
from cairn.settings import Mode

if TYPE_CHECKING:
    from cairn.agent.explore import Explorer

# Files and folders a turn's reads, searches and listings bring into play, at most.
MAX_SEEN = 200


@dataclass(frozen=True)
class TurnScope:
    """Everything one turn's parts share (see the module docstring).

    Frozen: what the turn is and how it runs is fixed when it starts; only the
    edited files and the edit log (containers) grow while it runs.
    """

    session: Session
    inputs: TurnInputs
    listener: SafeListener
    # The tools offered to the model in this turn, in the order it sees them.
    tools: tuple[str, ...]
    # The names of the scripted model's lane: none for the main agent; an explore
    # branch's index, trace name and text (a script line may use any of them).
    lane: tuple[str, ...] = ()
    # No edits and no goal changes (explore branches).
    read_only: bool = False
    # Whether compaction runs before the turn's model calls.
    compact: bool = True
    # Runs the `explore` tool's branches; None where the turn cannot explore.
    explorer: Explorer | None = None
    # The session the editor knows the turn by, when not its own (a branch: its parent's).
    editor_session_id: str | None = None
    # Files the turn edited, first edit first (files in play for the next builds).
    edited: list[Path] = field(default_factory=list)
    edit_log: EditLog = field(default_factory=EditLog)
    # Files the turn read, searched into or listed (folders too), first seen first: in play
    # for their rules, diagnostics and the map from the next build on (at most MAX_SEEN).
    seen: list[Path] = field(default_factory=list)

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


def offered_tools(
    registry: ToolRegistry, mode: Mode, *, read_only: bool = False, explore: bool = True
) -> tuple[str, ...]:
    """The mode's allowlist (`MODE_TOOLS`) that the registry has, narrowed for a branch."""
    names = [name for name in MODE_TOOLS[mode] if registry.get(name) is not None]
    if read_only:
        names = [name for name in names if name in READ_ONLY_TOOLS]
    if not explore:
        names = [name for name in names if name != Explore.name]
    return tuple(names)


def main_scope(
    session: Session,
    inputs: TurnInputs,
    listener: SafeListener,
    registry: ToolRegistry,
    explorer: Explorer | None,
    edited: Iterable[Path] = (),
) -> TurnScope:
    """The scope of a main-agent turn: the mode's tools, compaction on."""
    return TurnScope(
        session=session,
        inputs=inputs,
        listener=listener,
        tools=offered_tools(registry, inputs.mode),
        explorer=explorer,
        edited=list(edited),
    )


def branch_scope(
    session: Session,
    inputs: TurnInputs,
    lane: tuple[str, ...],
    registry: ToolRegistry,
    parent_id: str,
) -> TurnScope:
    """The scope of an explore branch: read-only tools, its own lane, no compaction; the
    editor's callbacks (reads) serve it as the parent session `parent_id`."""
    return TurnScope(
        session=session,
        inputs=inputs,
        listener=SafeListener(None),
        tools=offered_tools(registry, inputs.mode, read_only=True, explore=False),
        lane=lane,
        read_only=True,
        compact=False,
        editor_session_id=parent_id,
    )
