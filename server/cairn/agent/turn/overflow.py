"""A provider's context-length refusal: remember its limit, compact, and say what was done.

When a provider refuses a call as longer than its window (our tokenizer or
the model map disagreed with it), the turn loop calls `recover`: the window
the provider stated — in our tokenizer's units, `learned_window` — is kept
for the session's model (`meta.json`, so later calls and later processes
respect it), the session is compacted through the compactor's
`compact_for_overflow` (prune and summary, whatever the thresholds say; an
explore branch has no compactor and relies on the smaller budget alone),
and the returned `LearnedLimit`'s reason is recorded on the manifest of the
one retried call (the listener hears of it: a notice in ACP, a log line).

A limit that leaves no room for input once the call's fixed part is set
aside (tool schemas, the reserved output, the safety margin) is not kept:
every later call would fail with "no room for input", and no
`context_window` could lift it, since the smaller window holds. The turn
ends instead with an error naming the provider's limit, the fixed part and
the fix (`NoRoomError`). A limit kept earlier holds until the user clears
it (`cairn trace forget-limits`, docs/MODELS.md).
"""

from __future__ import annotations

from cairn.agent.api import LearnedLimit
from cairn.agent.compaction.compactor import Compactor
from cairn.agent.scope.turn_scope import TurnScope
from cairn.context.budget import Budget, learned_window
from cairn.context.builder import BuiltContext
from cairn.errors import ContextLengthError, ModelError

NO_ROOM = (
    "model {model}: the provider {stated}, which leaves no room for input after this call's"
    " fixed part (tool schemas {tools} + max_output_tokens {output} + safety_margin {margin}"
    " = {fixed} tokens); not kept for the session. Fix: give the model a larger window (its"
    " server's setting: Ollama's num_ctx, llama.cpp's -c, vLLM's --max-model-len) or choose a"
    " model with a larger one, or make the fixed part smaller (a lower max_output_tokens,"
    " fewer MCP servers)"
)


class NoRoomError(ModelError):
    """A provider's stated limit is below the call's fixed part: the turn cannot go on."""


def refused_tokens(built: BuiltContext) -> int:
    """Input tokens of the refused request, by our count (context blocks and tool schemas)."""
    return built.stats.used_input + built.stats.tool_schema_tokens


def check_room(model: str, window: int, refused: BuiltContext, error: ContextLengthError) -> None:
    """Raise `NoRoomError` when a window of `window` tokens leaves no room for input."""
    stats = refused.stats
    budget = Budget(
        context_window=window,
        max_output_tokens=stats.max_output_tokens,
        tool_schema_tokens=stats.tool_schema_tokens,
        safety_margin=stats.safety_margin,
    )
    if budget.available_input > 0:
        return
    stated = (
        f"states a context limit of {error.limit} tokens"
        if error.limit is not None
        else f"refused {refused_tokens(refused)} tokens of input as too many (no limit stated)"
    )
    fixed = stats.tool_schema_tokens + stats.max_output_tokens + stats.safety_margin
    raise NoRoomError(
        NO_ROOM.format(
            model=model,
            stated=stated,
            tools=stats.tool_schema_tokens,
            output=stats.max_output_tokens,
            margin=stats.safety_margin,
            fixed=fixed,
        ),
        kind="context_length",
    )


async def recover(
    scope: TurnScope,
    compactor: Compactor | None,
    refused: BuiltContext,
    error: ContextLengthError,
) -> LearnedLimit:
    """Remember the limit, compact, and return what was learned (its `reason` is recorded on
    the retry's manifest)."""
    window = learned_window(
        error.limit, error.used, refused_tokens(refused), refused.stats.max_output_tokens
    )
    check_room(scope.inputs.model, window, refused, error)
    scope.session.remember_limit(scope.inputs.model, window)
    stated = (
        f"the provider's limit is {error.limit} tokens"
        if error.limit is not None
        else "the provider stated no limit"
    )
    if compactor is None:
        done = "no compaction in an explore branch"
    else:
        result = await compactor.compact_for_overflow(scope)
        done = f"compacted ({result.kind}: {result.tokens_before} → {result.tokens_after} tokens)"
    reason = (
        f"context length exceeded ({stated}; this session now builds for {window} tokens); "
        f"{done}; retried once"
    )
    return LearnedLimit(scope.session.id, scope.inputs.model, window, reason)
