"""The per-call manifest and context statistics (PROTOCOL.md shapes).

`usedInput` is by definition the sum of the included blocks' tokens outside
the tools zone; it never exceeds `availableInput`. Tool schemas are listed
as blocks of the tools zone (one per tool, `ref` its name, in the order
sent) so the manifest shows the whole request, but their tokens are already
subtracted from the budget: they count in `ContextStats.toolSchemaTokens`
and under `bySource["tools"]` (which therefore adds up to everything sent),
not in `usedInput`.

`extras` is one line per kind of per-call extra (`EXTRA_SOURCES`: the
repository map, the profile, rules, buffers, the diff, diagnostics, the
plan, the ledger) with its included tokens, so the cost of each is visible at a glance;
`token_count` says how the call's tokens were counted and calibrated.
"""

from __future__ import annotations

from collections.abc import Iterable

from cairn.context.budget import Budget
from cairn.models.manifest import (
    EXTRA_SOURCES,
    CacheStats,
    CompactionStats,
    ContextBlock,
    ContextStats,
    ExtraCost,
    Manifest,
    ManifestBlock,
    ManifestCache,
    TokenCount,
)
from cairn.tokens.calibration import ModelCalibration
from cairn.tokens.counter import tokenizer_for

TOOLS_SOURCE = "tools"
TOOLS_ZONE = "tools"


def manifest_block(block: ContextBlock) -> ManifestBlock:
    return ManifestBlock(
        source=block.source,
        priority=block.priority,
        tokens=block.tokens,
        version=block.version,
        included=block.included,
        reason=block.reason,
        ref=block.ref,
        redactions=block.redactions,
        zone=block.zone,
        target=block.target,
    )


def _counted(block: ContextBlock) -> bool:
    return block.included and block.zone != TOOLS_ZONE


def used_tokens(blocks: Iterable[ContextBlock]) -> int:
    """Tokens of the included blocks (tool schemas are outside the input budget)."""
    return sum(b.tokens for b in blocks if _counted(b))


def build_manifest(
    session_id: str,
    call_id: str | None,
    model: str,
    budget: Budget,
    blocks: list[ContextBlock],
    *,
    cache_break: str | None = None,
    cache: ManifestCache | None = None,
) -> Manifest:
    return Manifest(
        session_id=session_id,
        call_id=call_id,
        model=model,
        available_input=budget.available_input,
        used_input=used_tokens(blocks),
        blocks=[manifest_block(b) for b in blocks],
        cache_break=cache_break,
        cache=cache or ManifestCache(),
    )


def by_source(blocks: Iterable[ContextBlock], tool_schema_tokens: int) -> dict[str, int]:
    """Included tokens per source, plus the tool schemas under "tools"."""
    totals: dict[str, int] = {}
    for block in blocks:
        if _counted(block):
            totals[block.source] = totals.get(block.source, 0) + block.tokens
    if tool_schema_tokens:
        totals[TOOLS_SOURCE] = tool_schema_tokens
    return totals


def build_stats(
    session_id: str,
    budget: Budget,
    blocks: list[ContextBlock],
    compaction: CompactionStats,
    cache: CacheStats | None = None,
    tokens: TokenCount | None = None,
) -> ContextStats:
    used = used_tokens(blocks)
    counting = tokens or TokenCount(factor=budget.calibration)
    counting.estimated_input = estimated_input(used + budget.tool_schema_tokens, counting.factor)
    return ContextStats(
        session_id=session_id,
        context_window=budget.context_window,
        max_output_tokens=budget.max_output_tokens,
        tool_schema_tokens=budget.tool_schema_tokens,
        safety_margin=budget.safety_margin,
        available_input=budget.available_input,
        used_input=used,
        by_source=by_source(blocks, budget.tool_schema_tokens),
        compaction=compaction,
        cache=cache or CacheStats(),
        tokens=counting,
    )


def extra_costs(blocks: Iterable[ContextBlock]) -> list[ExtraCost]:
    """One line per kind of per-call extra present in the call (`EXTRA_SOURCES` order)."""
    costs = {source: ExtraCost(source=source, tokens=0, blocks=0) for source in EXTRA_SOURCES}
    for block in blocks:
        cost = costs.get(block.source)
        if cost is None:
            continue
        if block.included:
            cost.tokens += block.tokens
            cost.blocks += 1
        else:
            cost.dropped += 1
    return [c for c in costs.values() if c.blocks or c.dropped]


def token_count(model: str, calibration: ModelCalibration, budget: Budget) -> TokenCount:
    """How `model`'s tokens are counted, and the factor this budget applied."""
    tokenizer = tokenizer_for(model)
    return TokenCount(
        tokenizer=tokenizer.name,
        exact=tokenizer.exact,
        factor=budget.calibration,
        samples=calibration.samples,
    )


def estimated_input(counted: int, factor: float) -> int:
    """The input tokens the provider should report for `counted` tokens of ours."""
    return round(counted * factor)
