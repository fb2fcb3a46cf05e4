"""The reference graph and the lexical statistics of the map's current tags, kept warm.

A new process reads them from the index's snapshot (`repomap_snapshot`, memory-mapped)
instead of building them from every file's tags: the files whose stamp differs from the
snapshot's (changed on disk, open in a buffer, new, gone) are patched in one at a time —
the lexicon always, the graph when each such file still defines the same names (else it
is rebuilt from the tags). Once built or loaded, both follow each file's change
(`changed`). The snapshot is rewritten after a build, or once more than REWRITE_AFTER
files changed since it was written, so a later process patches little. A snapshot that
is missing, foreign or broken only costs a build.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from cairn.repomap.current import CurrentTags, Transient, TransientFacts, fact_of
from cairn.repomap.graph import Floats, RankGraph
from cairn.repomap.lexicon import FileFacts, Lexicon
from cairn.repomap.rank import file_ranks
from cairn.repomap.snapshot import Snapshot, Stamp, read_snapshot, write_snapshot
from cairn.repomap.tags import FileTags

REWRITE_AFTER = 32
"""The snapshot is rewritten once more files than this changed since it was written."""
PATCH_LIMIT = 256
"""A snapshot with more stale files than this is not patched: the data is built anew."""

StampOf = Callable[[str], Stamp]
"""A current file's stamp (`UNKNOWN_STAMP` for one whose tags are not the disk's)."""


class RankingData:
    """The graph and the lexicon of one map (built, or loaded and patched, on demand)."""

    def __init__(self, path: Path | None, folder: str) -> None:
        self._path = path
        self._folder = folder
        self.graph: RankGraph | None = None
        self.lexicon: Lexicon | None = None
        self._read = False
        self._unsaved: set[str] | None = None
        """Files changed since the snapshot was written or read (None: none matches)."""
        self.graph_builds = 0
        """How many times the graph was built whole (edits mostly patch it)."""
        self._prior: Floats | None = None
        """The graph's PageRank with nothing in play or mentioned, once known."""

    def prior(self, graph: RankGraph) -> Floats:
        """The PageRank of `graph` (the current one) with nothing in play or mentioned."""
        if self._prior is None:
            self._prior = file_ranks(graph, frozenset(), frozenset())
        return self._prior

    @property
    def built(self) -> bool:
        """True once the graph or the lexicon is built or loaded (changes then matter)."""
        return self.graph is not None or self.lexicon is not None

    def changed(self, rel: str, new: FileTags | None) -> None:
        """One file's names or uses changed (None: it is gone)."""
        if self.lexicon is not None:
            fact = None if new is None else FileFacts(new.names, new.references)
            self.lexicon.update(rel, fact)
        if self.graph is not None and (new is None or not self.graph.update_file(rel, new)):
            self.graph = None
        self._prior = None
        if self._unsaved is not None:
            self._unsaved.add(rel)

    def graph_for(self, current: CurrentTags, stamp_of: StampOf) -> RankGraph:
        self._load(current, stamp_of)
        if self.graph is None:
            self.graph = RankGraph(Transient(current), current.names)
            self.graph_builds += 1
            self._prior = None
            self._unsaved = None
        return self.graph

    def lexicon_for(
        self,
        current: CurrentTags,
        stamp_of: StampOf,
        counted: Callable[[], Mapping[str, bytes]] | None = None,
    ) -> Lexicon:
        """The lexicon (`counted`: document shares the scans counted, for a build)."""
        self._load(current, stamp_of)
        if self.lexicon is None:
            self.lexicon = Lexicon(TransientFacts(current), counted() if counted else None)
            self._unsaved = None
        return self.lexicon

    def _load(self, current: CurrentTags, stamp_of: StampOf) -> None:
        """Read the snapshot once per process and patch in the files it does not match."""
        if self._read:
            return
        self._read = True
        snapshot = read_snapshot(self._path, self._folder) if self._path is not None else None
        if snapshot is not None:
            self._patch(snapshot, current, stamp_of)

    def _patch(self, snapshot: Snapshot, current: CurrentTags, stamp_of: StampOf) -> None:
        files = list(current)
        stale = sorted(rel for rel in files if snapshot.stamps.get(rel) != stamp_of(rel))
        listed = set(files)
        gone = [rel for rel in snapshot.files if rel not in listed]
        if len(stale) + len(gone) > PATCH_LIMIT:
            return
        lexicon = Lexicon.of(snapshot.postings)
        for rel in gone:
            lexicon.update(rel, None)
        for rel in stale:
            lexicon.update(rel, fact_of(current, rel))
        graph: RankGraph | None = snapshot.graph
        tags = Transient(current)
        if gone or not all(snapshot.graph.update_file(rel, tags[rel]) for rel in stale):
            graph = None
        self.lexicon, self.graph = lexicon, graph
        self._unsaved = {*stale, *gone}
        self._prior = snapshot.prior if graph is not None and not stale else None

    def save_if_due(self, stamp_of: StampOf) -> None:
        """Write the snapshot when none matches or many files changed since it was."""
        if self._path is None or self.graph is None or self.lexicon is None:
            return
        if self._unsaved is not None and len(self._unsaved) <= REWRITE_AFTER:
            return
        stamps = {rel: stamp_of(rel) for rel in self.graph.files}
        postings, prior = self.lexicon.postings, self.prior(self.graph)
        if write_snapshot(self._path, self._folder, stamps, self.graph, postings, prior):
            self._unsaved = set()
