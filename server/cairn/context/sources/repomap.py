"""Source: the repository map in the preamble, sized for what it is still worth.

The map orients the model in a repository it has not read: outlines of the
definitions the files in play use (or, with none in play, of the most
referenced ones). Its budget (`repomap_budget`) is a fixed, modest number
of tokens, not a share of a large window — Aider's default map is 1k
tokens — because a bigger map buys little once the model works on a few
files, and it rides on every call until the preamble is next recomputed
(the first preamble of a session often stays for a hundred calls). So:
- `REPOMAP_MAX_TOKENS`, never more than `REPOMAP_SHARE` of the input budget
  (small windows);
- shrunk by the share of the map's files the session has already read or
  edited (`covered_share`: the model has seen them itself), and left out
  with a manifest line saying why once less than `REPOMAP_MIN_TOKENS` (or
  than the whole cap, in a window too small for that) would remain.
With a user message, the map is led by a "Where to look" block: the files
ranked for the message (`cairn.repomap.where`), each with its best symbols and
a one-line reason, within WHERE_SHARE of the budget (its manifest line names
the first reasons); the map then shows those files first, in that order.
The budget is computed where the preamble is — at a turn's first call and
after a compaction, never mid-turn (the preamble is frozen for the rest of
the turn) — so a smaller map never breaks the cached prefix on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Protocol, runtime_checkable

from cairn.compaction.ledger import files_changed, files_read
from cairn.context.blocks import Candidate, Count, make_block, section
from cairn.context.priorities import (
    PRIORITY_REPOMAP,
    REPOMAP_CACHED_TOKENS,
    REPOMAP_LARGE_WINDOW,
    REPOMAP_MAX_TOKENS,
    REPOMAP_MID_TOKENS,
    REPOMAP_MID_WINDOW,
    REPOMAP_MIN_TOKENS,
    REPOMAP_SHARE,
    REPOMAP_UNCACHED_TOKENS,
)
from cairn.models.messages import Message
from cairn.models.where_weights import DEFAULT_WHERE_WEIGHTS, WhereWeights
from cairn.repomap.where import WHERE_TITLE, RankedFile, render_where

REPOMAP_TITLE = "Repository map (outlines of related definitions)"
REPOMAP_REF = "repomap"
WHERE_REF = "where-to-look"
WHERE_MAX_FILES = 10
"""Files in the "Where to look" block (fewer when its share of the map's budget is less)."""
WHERE_REASONS = 3
"""Files whose reasons the manifest line of the block names."""
WHERE_REASON = "where to look: "
WHERE_SHARE = 0.3
"""The block's most of the map's budget; the map gets the rest."""
COVERED_REASON = "not needed: the session has read {read} of the map's {total} files"
SMALL_REASON = "left out: the input budget leaves under {min} tokens for a map"
BUDGET_REASON = "map budget {tokens} tokens ({why})"


class RepoMapRenderer(Protocol):
    """What gathering needs of `cairn.repomap.map.RepoMap`."""

    def render(
        self,
        files_in_play: list[Path],
        mentioned: set[str],
        max_tokens: int,
        count: Callable[[str], int],
    ) -> str: ...

    def mapped_files(self) -> frozenset[str]:
        """Root-relative paths of the files the map can outline."""
        ...


@runtime_checkable
class WhereRanker(Protocol):
    """A map that also ranks files for a message (`RepoMap.where_to_look`) and renders
    itself in that order."""

    def where_to_look(
        self, files_in_play: list[Path], message: str, weights: WhereWeights = ...
    ) -> list[RankedFile]: ...

    def render(
        self,
        files_in_play: list[Path],
        mentioned: set[str],
        max_tokens: int,
        count: Callable[[str], int],
        order: Sequence[tuple[str, Sequence[str]]] = (),
    ) -> str: ...


@runtime_checkable
class RefreshesOnce(Protocol):
    """A map whose calls can share one look at the disk (`RepoMap.one_refresh`)."""

    def one_refresh(self) -> AbstractContextManager[None]: ...


def session_files(messages: Iterable[Message]) -> set[str]:
    """Workspace-relative paths the session has read or edited (every recorded message,
    folded or summarised or not: the ledger's records)."""
    history = list(messages)
    return {f.path for f in files_read(history)} | {f.path for f in files_changed(history)}


def covered_share(mapped: Collection[str], seen: Collection[str]) -> float:
    """The share of the map's files the session has read or edited (0 for an empty map)."""
    if not mapped:
        return 0.0
    return len(set(mapped) & set(seen)) / len(mapped)


def map_cap(
    window: int, setting: int | None = None, cache_read: float | None = None
) -> tuple[int, str]:
    """The map's cap for a window, the provider's prompt-cache read price (a multiple of
    the input price; None: unknown, taken as cached) and the `repo_map_tokens` setting
    (which wins), with why (see `cairn.context.priorities`)."""
    if setting is not None:
        return setting, f"repo_map_tokens = {setting}"
    size = f"a {window // 1000}k window"
    cached = cache_read is None or cache_read < 1.0
    cache = "prompt-cached" if cache_read is None else f"prompt cache reads at {cache_read:g}x"
    if window >= REPOMAP_LARGE_WINDOW:
        if cached:
            return REPOMAP_CACHED_TOKENS, f"{size}, {cache}"
        return REPOMAP_UNCACHED_TOKENS, f"{size}, no prompt cache"
    if window >= REPOMAP_MID_WINDOW:
        if cached:
            return REPOMAP_MID_TOKENS, f"{size}, {cache}"
        return REPOMAP_MAX_TOKENS, f"{size}, no prompt cache"
    return REPOMAP_MAX_TOKENS, size


def repomap_budget(available: int, covered: float, cap: int = REPOMAP_MAX_TOKENS) -> int:
    """The map's tokens for this preamble (see the module docstring); 0: no map."""
    cap = int(min(cap, available * REPOMAP_SHARE))
    budget = int(cap * (1.0 - covered))
    # A small window's whole cap may be under the minimum: only a shrunk map is left out.
    return budget if budget > 0 and budget >= min(REPOMAP_MIN_TOKENS, cap) else 0


def _left_out(reason: str, count: Count) -> Candidate:
    block = make_block("repomap", PRIORITY_REPOMAP, "", count=count, ref=REPOMAP_REF)
    block.included, block.reason = False, reason
    return Candidate(block=block, body="")


def where_block(ranked: Sequence[RankedFile], budget: int, count: Count) -> str:
    """The "Where to look" lines: the best files (at most WHERE_MAX_FILES) that fit
    `budget` tokens, whole lines only."""
    chosen: list[RankedFile] = []
    for candidate in ranked[:WHERE_MAX_FILES]:
        if count(render_where([*chosen, candidate])) > budget:
            break
        chosen.append(candidate)
    return render_where(chosen)


def _where_and_map(
    ranker: WhereRanker,
    files: Sequence[Path],
    mentioned: set[str],
    count: Count,
    budget: int,
    message: str,
    weights: WhereWeights,
) -> tuple[list[Candidate], str]:
    """The "Where to look" block (none when nothing ranks) and the map in its order,
    within `budget` together."""
    ranked = ranker.where_to_look(list(files), message, weights)
    where = where_block(ranked, int(budget * WHERE_SHARE), count)
    out: list[Candidate] = []
    if where:
        block = section("repomap", PRIORITY_REPOMAP, WHERE_TITLE, where, count=count, ref=WHERE_REF)
        shown = ranked[: where.count("\n")]
        block.block.reason = WHERE_REASON + "; ".join(
            f"{c.rel} ({c.reason})" for c in shown[:WHERE_REASONS]
        )
        out.append(block)
        budget -= count(where)
    order = [(c.rel, c.symbols) for c in ranked]
    return out, ranker.render(list(files), mentioned, budget, count, order)


def repomap_candidates(
    renderer: RepoMapRenderer,
    files: Sequence[Path],
    mentioned: set[str],
    history: Sequence[Message],
    count: Count,
    available: int,
    message: str = "",
    cap: tuple[int, str] = (REPOMAP_MAX_TOKENS, "the default"),
    weights: WhereWeights = DEFAULT_WHERE_WEIGHTS,
) -> tuple[Candidate, ...]:
    """The where-to-look block and the map in its order, within the map's budget now, or
    one excluded block saying why there is none (the map looks at the disk once)."""
    once = renderer.one_refresh() if isinstance(renderer, RefreshesOnce) else nullcontext()
    with once:
        return _candidates(
            renderer, files, mentioned, history, count, available, message, cap, weights
        )


def _candidates(
    renderer: RepoMapRenderer,
    files: Sequence[Path],
    mentioned: set[str],
    history: Sequence[Message],
    count: Count,
    available: int,
    message: str,
    cap: tuple[int, str],
    weights: WhereWeights,
) -> tuple[Candidate, ...]:
    mapped = renderer.mapped_files()
    seen = session_files(history)
    covered = covered_share(mapped, seen)
    budget = repomap_budget(available, covered, cap[0])
    if budget == 0:
        read = len(set(mapped) & seen)
        reason = (
            COVERED_REASON.format(read=read, total=len(mapped))
            if read
            else SMALL_REASON.format(min=REPOMAP_MIN_TOKENS)
        )
        return (_left_out(reason, count),)
    out: list[Candidate] = []
    budget_total = budget
    if isinstance(renderer, WhereRanker) and message.strip():
        where, text = _where_and_map(renderer, files, mentioned, count, budget, message, weights)
        out += where
    else:
        text = renderer.render(list(files), mentioned, budget, count)
    if text.strip():
        block = section(
            "repomap", PRIORITY_REPOMAP, REPOMAP_TITLE, text, count=count, ref=REPOMAP_REF
        )
        block.block.reason = BUDGET_REASON.format(tokens=budget_total, why=cap[1])
        out.append(block)
    return tuple(out)
