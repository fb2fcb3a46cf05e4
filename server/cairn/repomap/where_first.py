"""The map's definitions with the where-to-look files first, in where-to-look order.

Pure: the ranked (file, name) pairs, the where-to-look ranking (file, its best
symbols) and the names each file defines in, the reordered pairs out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

ORDERED_NAMES_PER_FILE = 8
"""Definitions a where-to-look file shows first in the map (its others follow the ranking)."""


def where_first(
    used: list[tuple[str, str]],
    order: Sequence[tuple[str, Sequence[str]]],
    in_play: frozenset[str],
    defined: Callable[[str], Iterable[str] | None],
) -> list[tuple[str, str]]:
    """The ranked definitions with those of `order`'s files first, in `order`: each
    such file's best symbols, then its used definitions in rank order (at most
    ORDERED_NAMES_PER_FILE in all); `defined(rel)`: the names a file defines now."""
    position = {rel: i for i, (rel, _) in enumerate(order) if rel not in in_play}
    best = {rel: list(symbols) for rel, symbols in order if rel in position}
    first: dict[str, list[tuple[str, str]]] = {rel: [] for rel in position}
    rest: list[tuple[str, str]] = []
    for pair in used:
        (first[pair[0]] if pair[0] in position else rest).append(pair)
    out: list[tuple[str, str]] = []
    for rel in sorted(position, key=position.__getitem__):
        used_names = [n for _, n in first[rel]]
        chosen = used_names
        if best[rel]:  # the file's best symbols first (those it still defines)
            names = set(defined(rel) or ())
            chosen = [n for n in best[rel] if n in names]
            taken = set(chosen)
            chosen += [n for n in used_names if n not in taken]
        if not chosen:
            chosen = sorted(set(defined(rel) or ()))
        head = chosen[:ORDERED_NAMES_PER_FILE]
        out += [(rel, n) for n in head]
        shown = set(head)
        rest += [(rel, n) for n in used_names if n not in shown]
    return out + rest
