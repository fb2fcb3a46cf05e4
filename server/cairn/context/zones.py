"""The cache zones of a request, in request order, and which zone each source goes to.

Providers bill a repeated prompt prefix at a fraction of the input price,
so a request is laid out with what changes least first (DESIGN §2.3):

1. `ZONE_TOOLS`: the tool schemas, in the fixed order of the mode's
   allowlist (then extra tools in registry order); changes only with the
   mode or the tool set;
2. `ZONE_SYSTEM`: the harness rules and the mode's rules — one system
   message, static for a mode;
3. `ZONE_PREAMBLE`: the project rules of the files in play, the project
   profile and the repository map — one system message, computed at the
   turn's first call and after a compaction, then frozen for the turn
   (a rules file that comes into play later is appended to the history);
4. `ZONE_HISTORY`: the frozen summary segment, then the conversation,
   append-only (attachments and harness notes are messages too);
5. `ZONE_TAIL`: one final user-role message rebuilt for every call — the
   ledger (`cairn.context.sources.ledger`: it changes with every command and
   edit, so anywhere earlier it would re-write the cache), the current plan,
   diagnostics, the uncommitted diff, changes to attached
   files since they were attached, the diagnostic being fixed. It is the
   only part of a request that is never read from the cache, so it is kept
   small (large stable texts are attachments in the history instead).

`ZONE_OF_SOURCE` is the default zone of each block source; attachments
(`reference`, `buffer` blocks rendered from history) are placed in the
history by `cairn.context.history`, and their later changes in the tail.
"""

from __future__ import annotations

from typing import Final

from cairn.models.manifest import Zone

ZONE_TOOLS: Final[Zone] = "tools"
ZONE_SYSTEM: Final[Zone] = "system"
ZONE_PREAMBLE: Final[Zone] = "preamble"
ZONE_HISTORY: Final[Zone] = "history"
ZONE_TAIL: Final[Zone] = "tail"

# Request order; every zone is a prefix-extension of the ones before it.
ZONES: Final[tuple[Zone, ...]] = (
    ZONE_TOOLS,
    ZONE_SYSTEM,
    ZONE_PREAMBLE,
    ZONE_HISTORY,
    ZONE_TAIL,
)
# The zones a provider can serve from its cache (the tail changes on every call).
CACHED_ZONES: Final[tuple[Zone, ...]] = ZONES[:-1]

ZONE_OF_SOURCE: Final[dict[str, Zone]] = {
    "tools": ZONE_TOOLS,
    "system": ZONE_SYSTEM,
    "mode": ZONE_SYSTEM,
    "rules": ZONE_PREAMBLE,
    "profile": ZONE_PREAMBLE,
    "repomap": ZONE_PREAMBLE,
    "summary": ZONE_HISTORY,
    "history": ZONE_HISTORY,
    "tool": ZONE_HISTORY,
    "user": ZONE_HISTORY,
    "reference": ZONE_HISTORY,
    "buffer": ZONE_HISTORY,
    "plan": ZONE_TAIL,
    "ledger": ZONE_TAIL,
    "diagnostics": ZONE_TAIL,
    "diff": ZONE_TAIL,
}

# Order of sections inside the system and preamble messages and the tail.
SECTION_ORDER: Final[dict[Zone, tuple[str, ...]]] = {
    ZONE_SYSTEM: ("system", "mode"),
    ZONE_PREAMBLE: ("rules", "profile", "repomap"),
    ZONE_TAIL: ("plan", "diagnostics", "diff", "buffer", "reference", "ledger"),
}


def zone_of(source: str) -> Zone:
    """The default zone of a block source (unknown sources go to the tail: rebuilt each call)."""
    return ZONE_OF_SOURCE.get(source, ZONE_TAIL)


def zone_rank(zone: Zone) -> int:
    """Position of a zone in the request."""
    return ZONES.index(zone)
