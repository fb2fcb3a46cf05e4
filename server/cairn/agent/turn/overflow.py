"""A provider's context-length refusal: remember its limit, compact, and say what was done.

When a provider refuses a call as longer than its window (our tokenizer or
the model map disagreed with it), the turn loop calls `recover`: the window
the provider stated — in our tokenizer's units, `learned_window` — is kept
for the session's model (`meta.json`, so later calls and later processes
respect it), the session is compacted through the compactor's
`compact_for_overflow` (prune and summary, whatever the thresholds say; an
explore branch has no compactor and relies on the smaller budget alone),
and the returned reason is recorded on the manifest of the one retried call.
"""

from __future__ import annotations

from cairn.agent.compaction.compactor import Compactor
from cairn.agent.scope.turn_scope import TurnScope
from cairn.context.budget import learned_window
from cairn.context.builder import BuiltContext
from cairn.errors import ContextLengthError


def refused_tokens(built: BuiltContext) -> int:
    """Input tokens of the refused request, by our count (context blocks and tool schemas)."""
    return built.stats.used_input + built.stats.tool_schema_tokens


async def recover(
    scope: TurnScope,
    compactor: Compactor | None,
    refused: BuiltContext,
    error: ContextLengthError,
) -> str:
    """Remember the limit, compact, and return the reason recorded on the retry's manifest."""
    window = learned_window(
        error.limit, error.used, refused_tokens(refused), refused.stats.max_output_tokens
    )
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
    return (
        f"context length exceeded ({stated}; this session now builds for {window} tokens); "
        f"{done}; retried once"
    )
