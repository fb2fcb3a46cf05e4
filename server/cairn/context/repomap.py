"""Repository map: outlines of the definitions most related to the files in play.

`RepoMap(folder, ignore, cache_dir)` keeps the tags (definitions and identifier uses) of
every non-ignored source file of a folder in a persisted index (`repomap_index`), ranks
definitions by their relation to the files in play and the mentioned identifiers
(`repomap_rank`), and renders the best of them as per-file outlines fitted to a token
budget (`repomap_render`). Same inputs give byte-identical output.

Open editor buffers override the disk through `update_buffer`; only that file is
re-extracted, and the ranking is reused when the edit left its names and uses unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from cairn.code.languages import language_for_path
from cairn.context.repomap_index import TagIndex
from cairn.context.repomap_rank import Ranking, rank_definitions
from cairn.context.repomap_render import fit
from cairn.context.repomap_tags import FileTags, tags_of_text

RANK_CACHE_SIZE = 8
"""Rankings kept for recent (files in play, mentioned) pairs of the current graph."""


class FileLister(Protocol):
    """What the map needs of ignore rules (`cairn.context.ignore.IgnoreRules` fits)."""

    def files(self) -> list[Path]: ...


RankKey = tuple[frozenset[str], frozenset[str]]


def _graph_signature(tags: FileTags) -> tuple[tuple[str, ...], dict[str, int]]:
    """What of a file's tags the ranking depends on (not line numbers or signatures)."""
    return tuple(record[0] for record in tags.definitions), tags.references


class RepoMap:
    """The ranked outline map of one workspace folder."""

    def __init__(self, folder: Path, ignore: FileLister, cache_dir: Path | None = None) -> None:
        self.folder = folder.resolve()
        self._ignore = ignore
        self._index = TagIndex(self.folder, cache_dir)
        self._buffers: dict[str, FileTags] = {}
        self._merged: dict[str, FileTags] | None = None
        self._ranks: dict[RankKey, list[tuple[str, str]]] = {}
        self._last_rank: dict[RankKey, Ranking] = {}
        """Last ranking per key, kept across changes to warm-start the next one."""

    def _relative(self, path: Path) -> str | None:
        full = path if path.is_absolute() else self.folder / path
        try:
            return full.resolve().relative_to(self.folder).as_posix()
        except ValueError:
            return None

    def update_buffer(self, path: Path, text: str | None) -> None:
        """Use `text` for `path` instead of the disk (None: back to the disk copy)."""
        rel = self._relative(path)
        if rel is None or language_for_path(rel) is None:
            return
        old = self._current(rel)
        if text is None:
            self._buffers.pop(rel, None)
        else:
            self._buffers[rel] = tags_of_text(text, rel)
        new = self._current(rel)
        self._merged = None
        if (old is None) != (new is None) or (
            old is not None and new is not None and _graph_signature(old) != _graph_signature(new)
        ):
            self._ranks.clear()

    def _current(self, rel: str) -> FileTags | None:
        return self._buffers.get(rel) or self._index.tags.get(rel)

    def refresh(self) -> None:
        """Re-read files changed on disk (one stat pass) and save the index if anything changed."""
        if self._index.refresh(self._ignore.files()):
            self._index.save()
            self._merged = None
            self._ranks.clear()

    @property
    def parsed_last_refresh(self) -> list[str]:
        """Relative paths parsed by the last refresh (unchanged files are not)."""
        return self._index.parsed_last_refresh

    def _tags(self) -> dict[str, FileTags]:
        if self._merged is None:
            merged = dict(self._index.tags)
            merged.update(self._buffers)
            self._merged = merged
        return self._merged

    def _ranked(self, in_play: frozenset[str], mentioned: frozenset[str]) -> list[tuple[str, str]]:
        key = (in_play, mentioned)
        ranked = self._ranks.get(key)
        if ranked is None:
            previous = self._last_rank.get(key)
            ranking = rank_definitions(
                self._tags(), in_play, mentioned, previous.file_rank if previous else None
            )
            ranked = ranking.pairs
            for cache in (self._ranks, self._last_rank):
                if key not in cache and len(cache) >= RANK_CACHE_SIZE:
                    cache.pop(next(iter(cache)))
            self._ranks[key] = ranked
            self._last_rank[key] = ranking
        return ranked

    def render(
        self,
        files_in_play: Iterable[Path],
        mentioned: set[str],
        max_tokens: int,
        count: Callable[[str], int],
    ) -> str:
        """The map for these files in play and mentioned identifiers, within `max_tokens`."""
        self.refresh()
        in_play = frozenset(
            rel for path in files_in_play if (rel := self._relative(path)) is not None
        )
        ranked = self._ranked(in_play, frozenset(mentioned))
        return fit(ranked, self._tags(), max_tokens, count)
