"""The compaction model call (agent lane "compaction"): the narrative part of a summary.

The call repeats the session's next request — the same tools, system,
preamble and history, so the provider serves them from its cache, with the
same breakpoints and routing key — and appends one instruction asking for
the JSON narrative (`cairn.compaction.narrative`). Only when that prefix
plus the instruction would not fit the model's input budget, when the
compaction model is another model than the session's (`compaction_model`: a
provider caches a prefix per model, and its window may be smaller), or when
the provider caches nothing (its cache price reads at full price: a local
server, the scripted model; the prefix would be paid whole again, and the
transcript is smaller) is a fresh transcript of the messages to cover sent
instead (large tool outputs as
their outline or excerpt, `cairn.agent.compaction.transcript_forms`), with no tools, through the
builder's secret redaction (the prefix was redacted when it was assembled). A failed
call leaves the narrative empty (the summary still carries the ledger);
its usage is added to the session's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cairn.agent.compaction.transcript_forms import shorten_for
from cairn.agent.scope.contexts import Contexts
from cairn.agent.scope.turn_scope import TurnScope
from cairn.compaction.markers import read_state
from cairn.compaction.narrative import (
    COMPACTION_AGENT,
    Narrative,
    compaction_messages,
    instruction_messages,
    parse_narrative,
)
from cairn.compaction.transcript import render_transcript
from cairn.context.builder import BuiltContext
from cairn.context.redact import redact_messages
from cairn.errors import CairnError
from cairn.llm import ModelRuntime
from cairn.llm.cache_hints import CacheHints, model_cache_price
from cairn.models.messages import Message
from cairn.settings import Settings
from cairn.tokens.counter import counter_for


def prefix_is_cached(settings: Settings, model: str) -> bool:
    """Whether `model`'s provider serves a repeated prefix for less than its full price."""
    return model_cache_price(settings, model).cached


def compaction_request(
    scope: TurnScope,
    built: BuiltContext,
    messages: Sequence[Message],
    index: int,
    settings: Settings,
) -> tuple[list[dict[str, Any]], bool]:
    """The call's messages, and whether they are the session's prefix (else a transcript)."""
    count = counter_for(scope.inputs.model)
    model = scope.inputs.model
    if scope.inputs.model_for("compaction") == model and prefix_is_cached(settings, model):
        request = instruction_messages(built.prefix_messages())
        tail = built.tail_index
        tail_tokens = count(str(built.messages[tail]["content"])) if tail is not None else 0
        need = built.stats.used_input - tail_tokens + count(str(request[-1]["content"]))
        if need <= built.stats.available_input:
            return request, True
    state = read_state(messages)
    covered = messages[state.watermark_index + 1 : index + 1]
    transcript = render_transcript(covered, state, count, shorten_for(count))
    return [dict(m) for m in compaction_messages(state.summary, transcript)], False


async def ask_narrative(
    runtime: ModelRuntime,
    contexts: Contexts,
    scope: TurnScope,
    built: BuiltContext,
    messages: Sequence[Message],
    index: int,
) -> Narrative:
    """The compaction model's narrative of the session (empty when the call fails)."""
    request, on_prefix = compaction_request(scope, built, messages, index, contexts.config.current)
    if not on_prefix:
        # The transcript holds old tool outputs verbatim: the builder's redactor applies
        # (the prefix was redacted when it was assembled).
        request, _ = redact_messages(request, contexts.builder.redactor)
    try:
        reply = await runtime.complete(
            scope.inputs.model_for("compaction"),
            request,
            scope.offer.schemas() if on_prefix else None,
            agent=COMPACTION_AGENT,
            main_model=scope.inputs.main_model,
            allow_empty=True,  # an empty narrative still gets the ledger from the records
            cache=CacheHints(scope.session.id, built.breakpoints) if on_prefix else None,
        )
    except CairnError as exc:
        scope.listener.on_log(f"compaction model call failed, ledger only: {exc}")
        return Narrative()
    scope.session.add_usage(reply.usage)
    return parse_narrative(reply.text)
