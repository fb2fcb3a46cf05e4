"""Where the next summary would cut a session's history, and what that part costs now.

The summary covers the oldest messages up to a watermark (`choose_watermark`):
the newest `keep_recent` share of the input stays verbatim. What is covered
need not fit one compaction call: its transcript is read in chunks, each within
the input the compaction call may use (`transcript_room`) — the main call's,
or less when the compaction model has a smaller window of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.agent.scope.turn_scope import TurnScope
from cairn.compaction import policy
from cairn.compaction.markers import read_state
from cairn.compaction.transcript import choose_watermark, covered_tokens
from cairn.context.budget import Budget, role_window
from cairn.models.messages import Message
from cairn.settings import Settings
from cairn.tokens.counter import counter_for

# Tokens of a compaction call's input left for its prompt and the notes carried (at least).
COMPACTION_PROMPT_RESERVE = 2_000


def transcript_room(scope: TurnScope, settings: Settings, available: int) -> int:
    """Input the compaction call may use: the main call's `available`, or less when the
    compaction model has a smaller window of its own."""
    model = scope.inputs.model_for("compaction")
    if model == scope.inputs.model:
        return available
    own = Budget.of(role_window(model, scope.inputs.model, settings), settings)
    return min(available, own.available_input)


def summary_cut(
    scope: TurnScope,
    messages: Sequence[Message],
    available: int,
    keep_recent: float,
    *,
    replied: bool = False,
) -> tuple[int, int] | None:
    """The index the next summary would cover up to, and what that part costs now
    (`keep_recent`: the share of `available` left verbatim; `replied`: the model has
    answered the newest step of `messages`); None when nothing can be covered."""
    state = read_state(messages)
    count = counter_for(scope.inputs.model)
    index = choose_watermark(
        messages,
        state,
        count,
        keep_recent_tokens=policy.keep_recent_tokens(available, keep_recent),
        replied=replied,
    )
    if index is None:
        return None
    return index, covered_tokens(messages, state, count, index)
