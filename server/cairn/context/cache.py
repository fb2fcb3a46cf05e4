"""What assembly knows of the provider's prompt cache: the frozen preamble, the previous call,
the engine's recorded breaks; and how a manifest names a cache break (pure).

`CacheView` is everything a build takes from outside its snapshot to stay
cache-stable: the preamble frozen at the turn's first call, the previous
call's prefix and model, the selection memo of that call, the reasons of
the breaks the engine applied since (a fold, a prune, a summary, a mode
switch, a refreshed preamble) and whether the provider's cache is cold
anyway (idle longer than its lifetime). A build without one (a plain
`ContextBuilder.build`) is that of a session's first call.

`break_reason` names why the prefix changed: the engine's reasons first,
then what assembly itself saw (history the budget dropped, a model switch);
a change nobody explains is named "unexplained: <zone> changed", which the
cache bench counts as a failure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from cairn.context.blocks import Candidate
from cairn.context.prefix import PrefixEntry, PrefixMatch
from cairn.context.select import Outcome
from cairn.models.session import Usage

MODEL_SWITCH = "model switch"
PREAMBLE_CHANGE = "turn start: {what} changed"
PREAMBLE_PARTS: Mapping[str, str] = {
    "rules": "project rules",
    "profile": "project profile",
    "repomap": "repository map",
}


# (source, ref, content hash) of each included preamble section, in order.
Signature = tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class Preamble:
    """The preamble zone's sections as built at the turn's first call (or after a compaction)."""

    candidates: tuple[Candidate, ...]
    # ref → content hash of each rules file it holds (later ones are attached instead).
    rules: Mapping[str, str] = field(default_factory=dict)
    # The files in play it was made for, bar the agent's own edits (workspace-relative, sorted).
    files: tuple[str, ...] = ()

    def signature(self) -> Signature:
        return tuple(
            (c.block.source, c.block.ref or "", c.block.version)
            for c in self.candidates
            if c.block.included
        )


@dataclass(frozen=True)
class CacheView:
    """What a build knows besides its snapshot (see the module docstring)."""

    preamble: Preamble | None = None
    previous: tuple[PrefixEntry, ...] | None = None
    previous_model: str | None = None
    memo: Mapping[tuple[str, str, str], Outcome] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    cold: str | None = None
    # The previous call's usage as the provider reported it, and the last break recorded.
    last_usage: Usage | None = None
    last_break: str | None = None


def preamble_change(old: Signature | None, new: Preamble) -> str | None:
    """Why a recomputed preamble differs from the one sent before (`old`: its signature)."""
    if old is None or old == new.signature():
        return None
    before = {(s, r): v for s, r, v in old}
    after = {(s, r): v for s, r, v in new.signature()}
    changed = {key[0] for key in set(before) | set(after) if before.get(key) != after.get(key)}
    what = ", ".join(PREAMBLE_PARTS.get(s, s) for s in sorted(changed)) or "preamble"
    return PREAMBLE_CHANGE.format(what=what)


def _budget_changes(
    previous: Sequence[PrefixEntry], changed: Mapping[str, str | None]
) -> str | None:
    """The budget's part in a break: blocks the previous call sent that this selection left
    out or sent in another (smaller) form (`changed`: key → version sent now, None when out)."""
    shown_before = {e.key: e.version for e in previous}
    lost = [k for k, version in changed.items() if k in shown_before and version is None]
    shrunk = [
        k
        for k, version in changed.items()
        if version is not None and shown_before.get(k) not in (None, version)
    ]
    parts = [f"{len(lost)} dropped"] if lost else []
    parts += [f"{len(shrunk)} shrunk"] if shrunk else []
    if not parts:
        return None
    blocks = len(lost) + len(shrunk)
    return f"budget: {' and '.join(parts)} ({blocks} block{'s' if blocks != 1 else ''})"


def break_reason(
    view: CacheView, match: PrefixMatch | None, model: str, budget: Mapping[str, str | None]
) -> str | None:
    """Why this call cannot read the previous call's prefix in full, or None when it can."""
    if view.previous is None or match is None:
        return view.cold
    reasons: list[str] = []
    if view.previous_model is not None and view.previous_model != model:
        reasons.append(MODEL_SWITCH)
    if view.cold is not None:
        reasons.append(view.cold)
    if match.changed_zone is not None:
        reasons += view.reasons
        by_budget = _budget_changes(view.previous, budget)
        if by_budget is not None:
            reasons.append(by_budget)
        if not reasons:
            reasons.append(f"unexplained: {match.changed_zone} changed")
    return "; ".join(dict.fromkeys(reasons)) or None


def predicted_cached(view: CacheView, match: PrefixMatch | None, model: str) -> int:
    """Tokens the provider should serve from its cache (0 when it is cold or another model)."""
    if match is None or view.cold is not None:
        return 0
    if view.previous_model is not None and view.previous_model != model:
        return 0
    return match.tokens
