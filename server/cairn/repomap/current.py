"""The tags the map ranks now: the index's, overridden by open buffers (read lazily).

`CurrentTags` is a read-through view (nothing copied): a buffer's tags win over the
index's, a buffer the map refuses hides the file, and the index decodes a file's stored
tags only when they are read (`Transient` reads them without keeping them: for builds
that read every file once). `CurrentFacts` gives where-to-look what it knows of every file —
the names each defines, with its identifier uses read only if asked for — without
decoding any file's tags.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from cairn.repomap.entries import IndexTags
from cairn.repomap.lexicon import FileFacts
from cairn.repomap.reading import Refusal
from cairn.repomap.tags import FileTags


class CurrentTags(Mapping[str, FileTags]):
    """The index's tags with the open buffers' in their place."""

    def __init__(
        self,
        index: IndexTags,
        buffers: Mapping[str, FileTags],
        refused: Mapping[str, Refusal],
    ) -> None:
        self._index = index
        self._buffers = buffers
        self._refused = refused

    def __getitem__(self, rel: str) -> FileTags:
        if rel in self._refused:
            raise KeyError(rel)
        buffer = self._buffers.get(rel)
        return buffer if buffer is not None else self._index[rel]

    def __contains__(self, rel: object) -> bool:
        if rel in self._refused:
            return False
        return rel in self._buffers or rel in self._index

    def __iter__(self) -> Iterator[str]:
        refused, buffers = self._refused, self._buffers
        for rel in self._index:
            if rel not in refused:
                yield rel
        for rel in list(buffers):
            if rel not in refused and rel not in self._index:
                yield rel

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def names(self, rel: str) -> tuple[str, ...] | None:
        """The names `rel` defines (None: not a mapped file), without decoding its tags."""
        if rel in self._refused:
            return None
        buffer = self._buffers.get(rel)
        return buffer.names if buffer is not None else self._index.names(rel)

    def peek(self, rel: str) -> FileTags | None:
        """The tags of `rel` without keeping them decoded (None: not a mapped file)."""
        if rel in self._refused:
            return None
        buffer = self._buffers.get(rel)
        return buffer if buffer is not None else self._index.peek(rel)


class Transient(Mapping[str, FileTags]):
    """The current tags for reading every file once (a build): each file's are decoded
    when read and dropped after, so a build never holds every file's uses at once."""

    def __init__(self, current: CurrentTags) -> None:
        self._current = current

    def __getitem__(self, rel: str) -> FileTags:
        tags = self._current.peek(rel)
        if tags is None:
            raise KeyError(rel)
        return tags

    def __iter__(self) -> Iterator[str]:
        return iter(self._current)

    def __len__(self) -> int:
        return len(self._current)


class TransientFacts(Mapping[str, FileFacts]):
    """`Transient`, as what the lexicon reads of each file."""

    def __init__(self, current: CurrentTags) -> None:
        self._tags = Transient(current)

    def __getitem__(self, rel: str) -> FileFacts:
        tags = self._tags[rel]
        return FileFacts(tags.names, tags.references)

    def __iter__(self) -> Iterator[str]:
        return iter(self._tags)

    def __len__(self) -> int:
        return len(self._tags)


class LazyReferences(Mapping[str, int]):
    """A file's identifier uses, read from its tags on first access."""

    def __init__(self, tags: Callable[[], FileTags]) -> None:
        self._tags = tags
        self._references: Mapping[str, int] | None = None

    def _loaded(self) -> Mapping[str, int]:
        if self._references is None:
            self._references = self._tags().references
        return self._references

    def __getitem__(self, name: str) -> int:
        return self._loaded()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


def fact_of(current: CurrentTags, rel: str) -> FileFacts | None:
    """What where-to-look knows of one file (None: not a mapped file)."""
    names = current.names(rel)
    if names is None:
        return None
    return FileFacts(names, LazyReferences(lambda: Transient(current)[rel]))


class CurrentFacts(Mapping[str, FileFacts]):
    """`fact_of` every current file, read when asked (nothing is copied: it is always
    the current tags')."""

    def __init__(self, current: CurrentTags) -> None:
        self._current = current

    def __getitem__(self, rel: str) -> FileFacts:
        fact = fact_of(self._current, rel)
        if fact is None:
            raise KeyError(rel)
        return fact

    def __contains__(self, rel: object) -> bool:
        return rel in self._current

    def __iter__(self) -> Iterator[str]:
        return iter(self._current)

    def __len__(self) -> int:
        return len(self._current)
