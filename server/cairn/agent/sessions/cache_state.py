"""A session's prompt-cache state between its model calls (run time only).

What the next build needs to keep the request's prefix byte-identical to
the previous call's, and to name a break when it is not:
- the preamble frozen at the turn's first call (recomputed after a summary
  or a mode switch; at the next turn when the cache went cold or the files
  in play changed: `cairn.compaction.cache_policy.refresh_preamble`);
- the last snapshot gathered for a real call (a goal folded between calls
  is measured on it instead of gathering again);
- the previous call's manifest (its prefix, its model, when it was sent and
  the usage the provider reported), read from the trace when the session
  was opened by this process;
- the selection memo of the previous call and the reasons of the breaks
  the engine applied since (`note_break`);
- how many calls the current turn has made (the break policy's estimate of
  the calls still to come);
- the token calibration the turn's first call was built with (kept for the
  rest of the turn, like the preamble: a factor learned from a call changes
  the budget from the next turn on, never mid-turn).

An explore branch starts with its parent's (`inherit`): the frozen preamble,
the selection memo, the previous call (the parent's last), the mode and the
calibration, so its first request repeats the parent's prefix byte for byte
and its manifest measures itself against the parent's last call.

A new process starts with none of it: the preamble is recomputed and the
previous manifest is read from the trace, so predictions and break reasons
stay right; whether the provider's cache is still warm is judged by the
time since that manifest's call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cairn.context.cache import Preamble
from cairn.context.select import MemoKey, Outcome, without_drops
from cairn.context.snapshot import ContextSnapshot
from cairn.models.manifest import Manifest
from cairn.settings import Mode
from cairn.tokens.calibration import ModelCalibration


@dataclass
class SessionCache:
    """See the module docstring."""

    preamble: Preamble | None = None
    # The turn whose first call froze the preamble.
    preamble_turn: str | None = None
    # Recompute the preamble at the next call (set after a summary).
    refresh: bool = False
    snapshot: ContextSnapshot | None = None
    last: Manifest | None = None
    # Whether `last` was looked up in the trace already (a session opened by this process).
    loaded: bool = False
    mode: Mode | None = None
    # The reason of the last cache break recorded in the session (the meter shows it).
    last_break: str | None = None
    memo: dict[MemoKey, Outcome] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    turn: str | None = None
    calls_in_turn: int = 0
    # (turn, model, calibration) of the turn's first call.
    calibration: tuple[str | None, str, ModelCalibration] | None = None
    # Taken from a parent session (an explore branch) and not yet used by a call of its own:
    # the preamble and calibration hold for the branch's first turn.
    inherited: bool = False

    def inherit(self, parent: SessionCache, reason: str | None = None) -> None:
        """Start from `parent`'s state (see the module docstring); `reason` names the break
        when the branch does not repeat the parent's history."""
        self.preamble, self.memo, self.mode = parent.preamble, dict(parent.memo), parent.mode
        self.last, self.loaded, self.last_break = parent.last, True, parent.last_break
        self.calibration = parent.calibration
        self.reasons = [reason] if reason else []
        self.inherited = parent.preamble is not None

    def note_break(self, reason: str) -> None:
        """The engine rewrote the prefix (a fold, a prune, a summary): say why in the next
        manifest, and let history the budget kept out come back."""
        if reason not in self.reasons:
            self.reasons.append(reason)
        self.memo = without_drops(self.memo)

    def committed(
        self,
        manifest: Manifest,
        preamble: Preamble,
        memo: dict[MemoKey, Outcome],
        mode: Mode,
        turn: str | None,
    ) -> None:
        """Keep what the call just sent for the next build."""
        if turn != self.turn:
            self.turn, self.calls_in_turn = turn, 0
        self.calls_in_turn += 1
        self.last, self.loaded = manifest, True
        self.preamble, self.preamble_turn = preamble, turn
        self.refresh = False
        self.inherited = False
        self.memo = memo
        self.reasons = []
        self.mode = mode

    def calls_this_turn(self, turn: str | None) -> int:
        return self.calls_in_turn if turn == self.turn else 0
