"""The cacheable prefix of a request, compared with the previous call's (pure).

A request's prefix is its blocks in request order, zone by zone, up to the
tail (`cairn.context.zones.CACHED_ZONES`): each tool schema, the system and
preamble sections, the history blocks. Each entry is identified by its
source and ref and compared by content hash, so a manifest is enough to
know what the previous call sent (`entries_of(manifest)`; the manifest is
persisted, so this also works for a session resumed in a new process).

`common_prefix` is how far two prefixes agree; its tokens are the build's
prediction of what the provider can serve from its cache (providers add
their own rules on top: minimum lengths, 128-token steps, breakpoints).
When the agreement stops before the end of the previous prefix, the cache
broke there (`first_change`), and the manifest names why (`cacheBreak`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.context.zones import CACHED_ZONES
from cairn.models.manifest import Manifest, ManifestBlock, Zone


@dataclass(frozen=True, slots=True)
class PrefixEntry:
    zone: Zone
    key: str
    version: str
    tokens: int


@dataclass(frozen=True, slots=True)
class PrefixMatch:
    """How two prefixes agree: entries and tokens in common, and where the old one changed."""

    entries: int
    tokens: int
    # Zone of the first entry of the previous prefix that is not in the new one (None: intact).
    changed_zone: Zone | None


# Sources of the same recorded message (the current user message is "user" in its own
# turn, "history" after it): one key, so a new turn does not look like a changed prefix.
MESSAGE_SOURCES = frozenset({"user", "history"})


def entry_of(block: ManifestBlock) -> PrefixEntry | None:
    """The prefix entry of an included block of a cached zone, else None."""
    if not block.included or block.zone is None or block.zone not in CACHED_ZONES:
        return None
    source = "history" if block.source in MESSAGE_SOURCES else block.source
    return PrefixEntry(block.zone, f"{source}:{block.ref}", block.version, block.tokens)


def entries_of(manifest: Manifest) -> tuple[PrefixEntry, ...]:
    """The cacheable prefix a manifest's call sent, in request order."""
    return tuple(e for b in manifest.blocks if (e := entry_of(b)) is not None)


def common_prefix(previous: Sequence[PrefixEntry], now: Sequence[PrefixEntry]) -> PrefixMatch:
    """How far `now` repeats `previous` from the start."""
    tokens = 0
    for index, (old, new) in enumerate(zip(previous, now, strict=False)):
        if old != new:
            return PrefixMatch(index, tokens, old.zone)
        tokens += new.tokens
    shared = min(len(previous), len(now))
    changed = previous[shared].zone if shared < len(previous) else None
    return PrefixMatch(shared, tokens, changed)


def prefix_tokens(entries: Sequence[PrefixEntry]) -> int:
    return sum(e.tokens for e in entries)
