"""Repository map: outlines of the definitions most related to the files in play.

`RepoMap(folder, ignore, cache_dir)` keeps the tags (definitions and identifier uses) of
every non-ignored source file of a folder in a persisted index (`repomap_index`), ranks
definitions by their relation to the files in play and the mentioned identifiers
(`repomap_rank`), and renders the best of them as per-file outlines fitted to a token
budget (`repomap_render`). Same inputs give byte-identical output. Files the secret-path
rules refuse are never read; special, huge, minified and generated files are left out
(`refused` says which and why).

Open editor buffers override the disk through `update_buffer`; only that file is
re-scanned (and parsed only if the map shows it), the reference graph is updated in
place when the file still defines the same names, and the ranking is reused when the
edit left its names and uses unchanged. A file changed on disk is handled the same way
by the next refresh, and the index saves only what changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from cairn.code.incremental import ParsedDocument
from cairn.code.languages import language_for_path
from cairn.models.where_weights import DEFAULT_WHERE_WEIGHTS, WhereWeights
from cairn.repomap.current import CurrentFacts, CurrentTags
from cairn.repomap.index import ScanProgress, SecretPolicy, TagIndex, builtin_secrets
from cairn.repomap.listing import FileLister, listing
from cairn.repomap.message_mentions import mentions_in
from cairn.repomap.parts import DefRecord, WholeParse, tree_records
from cairn.repomap.rank import Ranking, rank_definitions
from cairn.repomap.ranking_data import RankingData
from cairn.repomap.reading import Refusal, read_source
from cairn.repomap.render import file_block, fit
from cairn.repomap.snapshot import UNKNOWN_STAMP, Stamp
from cairn.repomap.tags import FileTags, complete_text, scan_text
from cairn.repomap.where import RankedFile, WhereMeasure, ranked_from_parts
from cairn.repomap.where_first import where_first
from cairn.repomap.where_parts import file_parts

RANK_CACHE_SIZE = 8
"""Rankings kept for recent (files in play, mentioned) pairs of the current graph."""


RankKey = tuple[frozenset[str], frozenset[str]]


def _graph_signature(tags: FileTags) -> tuple[tuple[str, ...], dict[str, int]]:
    """What of a file's tags the ranking depends on (not line numbers or signatures)."""
    return tags.names, tags.references


class RepoMap:
    """The ranked outline map of one workspace folder (one caller at a time: not thread-safe)."""

    def __init__(
        self,
        folder: Path,
        ignore: FileLister,
        cache_dir: Path | None = None,
        secrets: SecretPolicy = builtin_secrets,
    ) -> None:
        self.folder = folder.resolve()
        self._ignore = ignore
        self._secrets = secrets
        self._index = TagIndex(self.folder, cache_dir, secrets)
        self._buffers: dict[str, FileTags] = {}
        self._buffer_texts: dict[str, str] = {}
        self._refused_buffers: dict[str, Refusal] = {}
        """Open buffers the map leaves out (too large, minified, generated)."""
        self._view = CurrentTags(self._index.tags, self._buffers, self._refused_buffers)
        self._data = RankingData(self._index.snapshot_path, str(self.folder))
        """The graph and the lexicon (loaded from the index's snapshot, or built)."""
        self._facts = CurrentFacts(self._view)
        """What where-to-look knows of each file (read from the current tags)."""
        self._ranks: dict[RankKey, Ranking] = {}
        self._blocks: dict[str, tuple[dict[str, int], dict[frozenset[str], str]]] = {}
        """Rendered outline blocks per file and names shown, with the scan they belong to."""
        self._documents: dict[str, ParsedDocument] = {}
        """Buffers parsed whole (languages without a name finder, a part with a syntax
        error), kept so that the next whole parse after an edit is incremental."""
        self.buffer_parses = {"full": 0, "incremental": 0}
        """Whole-buffer parses made, from scratch and incrementally."""
        self.progress: ScanProgress | None = None
        """Told `(done, total)` while a refresh scans many files (`TagIndex.refresh`)."""
        self._holds = 0
        self._held_fresh = False
        """Inside `one_refresh`: True once the disk was looked at."""

    def _relative(self, path: Path) -> str | None:
        full = path if path.is_absolute() else self.folder / path
        try:
            return full.resolve().relative_to(self.folder).as_posix()
        except (ValueError, OSError, RuntimeError):  # outside, or a symlink loop
            return None

    def update_buffer(self, path: Path, text: str | None) -> None:
        """Use `text` for `path` instead of the disk (None: back to the disk copy)."""
        rel = self._relative(path)
        if rel is None or language_for_path(rel) is None:
            return
        if self._is_secret(rel):
            text = None  # never held, and dropped if the rules made it secret since
        old = self._current(rel)
        self._buffers.pop(rel, None)
        self._buffer_texts.pop(rel, None)
        self._refused_buffers.pop(rel, None)
        if text is None:
            self._documents.pop(rel, None)
        else:
            scanned = scan_text(text, rel, self._kept_parse(rel, text))
            if isinstance(scanned, str):
                self._refused_buffers[rel] = scanned
            else:
                self._buffers[rel] = scanned
                self._buffer_texts[rel] = text
        self._changed(rel, old, self._current(rel))

    def _is_secret(self, rel: str) -> bool:
        return self._secrets().is_secret(PurePosixPath(rel))

    def _kept_parse(self, rel: str, text: str) -> WholeParse:
        """A whole parse of buffer `rel` holding `text` that re-parses its kept tree."""

        def whole(data: bytes, language: str) -> tuple[DefRecord, ...]:
            document = self._documents.get(rel)
            if document is not None and document.language == language:
                if not document.replace_text(text):
                    return tree_records(document.tree, document.data, language)
                self.buffer_parses["incremental"] += 1
                if not document.tree.root_node.has_error:
                    return tree_records(document.tree, document.data, language)
            # New, or with a syntax error: tree-sitter's error recovery may differ between
            # an incremental and a fresh parse, and the map must not depend on the edits
            # that led to this text.
            document = self._documents[rel] = ParsedDocument(text, rel)
            self.buffer_parses["full"] += 1
            return tree_records(document.tree, document.data, language)

        return whole

    def _changed(self, rel: str, old: FileTags | None, new: FileTags | None) -> None:
        """Bring the merged tags, the graph and the rankings up to date with one file's
        change: the ranking is kept when its names and uses are the same, the graph is
        patched when only its uses changed, else rebuilt on the next render."""
        if old is not None and new is not None and _graph_signature(old) == _graph_signature(new):
            return
        self._ranks.clear()
        self._data.changed(rel, new)

    @property
    def graph_builds(self) -> int:
        """How many times the reference graph was built whole (edits mostly patch it)."""
        return self._data.graph_builds

    def _stamp(self, rel: str) -> Stamp:
        """A current file's stamp for the snapshot (unknown for an open buffer)."""
        if rel in self._buffers:
            return UNKNOWN_STAMP
        return self._index.stamp(rel) or UNKNOWN_STAMP

    def _current(self, rel: str) -> FileTags | None:
        if rel in self._refused_buffers:
            return None
        return self._buffers.get(rel) or self._index.tags.get(rel)

    @property
    def refused(self) -> dict[str, Refusal]:
        """Source files (and open buffers) left out of the map, with the reason; files
        with a secret path are not listed, nor ever read."""
        return {**self._index.refused, **self._refused_buffers}

    def refresh(self) -> None:
        """Re-scan files changed on disk (one stat pass); save the index if anything changed."""
        try:
            self._refresh()
        finally:
            self._index.close()
        self._save()

    def _save(self) -> None:
        """Store what changed: the index, and the ranking snapshot when it is due."""
        if self._index.dirty:
            self._index.save()
        self._data.save_if_due(self._stamp)

    @contextmanager
    def one_refresh(self) -> Iterator[None]:
        """Within it, the disk is looked at by the first call only: the calls of one build
        (the mapped files, the ranking, the map) see one state of the workspace, for one
        stat pass instead of one each. Buffer updates still apply at once."""
        self._holds += 1
        self._held_fresh = False
        try:
            yield
        finally:
            self._holds -= 1

    def _refresh(self) -> None:
        for rel in [
            rel for rel in {*self._buffers, *self._refused_buffers} if self._is_secret(rel)
        ]:
            self.update_buffer(self.folder / rel, None)  # rules changed: a secret buffer goes
        if self._holds and self._held_fresh:
            return
        self._held_fresh = self._holds > 0
        for rel, old in self._index.refresh(
            listing(self._ignore, self.folder), self.progress
        ).items():
            if rel in self._buffers or rel in self._refused_buffers:
                continue
            if old is None and not self._data.built:
                self._ranks.clear()  # nothing built yet: no need to read the new tags
                continue
            self._changed(rel, old, self._index.tags.peek(rel))
        if self._data.lexicon is not None:
            self._index.take_counted()  # the lexicon follows each change: not needed

    def _counted(self) -> dict[str, bytes]:
        """The document shares the scans counted, of files whose tags are the index's."""
        counted = self._index.take_counted()
        for rel in {*self._buffers, *self._refused_buffers}:
            counted.pop(rel, None)
        return counted

    def mapped_files(self) -> frozenset[str]:
        """Root-relative paths of the files with definitions the map can outline (refreshed
        first)."""
        self.refresh()
        view = self._view
        return frozenset(rel for rel in view if view.names(rel))

    @property
    def scanned_last_refresh(self) -> list[str]:
        """Relative paths scanned by the last refresh (unchanged files are not)."""
        return self._index.scanned_last_refresh

    def _block(self, rel: str, names: frozenset[str]) -> str:
        """The outline block of `rel` showing `names` (parsing what it needs).

        Blocks are kept per file while its scan stays the same (its `references` object:
        parsing more parts keeps it, a re-scan replaces it); a block depends only on the
        parts holding its names, so parsing other parts never outdates it.
        """
        current = self._current(rel)
        entry = self._blocks.get(rel)
        if entry is not None and current is not None and entry[0] is current.references:
            block = entry[1].get(names)
            if block is not None:
                return block
        tags = self._with_definitions(rel, names)
        if entry is None or entry[0] is not tags.references:
            entry = (tags.references, {})
            self._blocks[rel] = entry
        block = file_block(rel, tags.shown_definitions(names), names)
        entry[1][names] = block
        return block

    def _with_definitions(self, rel: str, names: frozenset[str]) -> FileTags:
        buffer = self._buffers.get(rel)
        if buffer is None:
            return self._index.complete(rel, names)
        if buffer.unparsed(names) != []:
            text = self._buffer_texts[rel]
            buffer = complete_text(buffer, text, rel, names, self._kept_parse(rel, text))
            self._buffers[rel] = buffer
        return buffer

    def _ranked(self, in_play: frozenset[str], mentioned: frozenset[str]) -> Ranking:
        key = (in_play, mentioned)
        ranked = self._ranks.get(key)
        if ranked is None:
            graph = self._data.graph_for(self._view, self._stamp)
            known = self._data.prior(graph) if not in_play and not mentioned else None
            ranked = rank_definitions(graph, in_play, mentioned, known)
            if len(self._ranks) >= RANK_CACHE_SIZE:
                self._ranks.pop(next(iter(self._ranks)))
            self._ranks[key] = ranked
        return ranked

    def used_definitions(
        self, files_in_play: Iterable[Path], mentioned: set[str]
    ) -> list[tuple[str, str]]:
        """(file, identifier) of the definitions some file uses (or that are mentioned), best
        first, as the map would rank them."""
        self.refresh()
        return list(self._ranked(self._in_play(files_in_play), frozenset(mentioned)).used)

    def _in_play(self, files_in_play: Iterable[Path]) -> frozenset[str]:
        return frozenset(rel for path in files_in_play if (rel := self._relative(path)) is not None)

    def where_to_look(
        self,
        files_in_play: Iterable[Path],
        message: str,
        weights: WhereWeights = DEFAULT_WHERE_WEIGHTS,
    ) -> list[RankedFile]:
        """The workspace's files ranked for `message` (`repomap_where`), best first; the
        map's PageRank for these files in play is the structural prior."""
        return ranked_from_parts(self.where_measure(files_in_play, message), weights)

    def where_measure(self, files_in_play: Iterable[Path], message: str) -> WhereMeasure:
        """The unweighted parts of the where-to-look scores for `message` (what
        `where_to_look` weighs; a fit weighs one measure many ways)."""
        in_play = self._in_play(files_in_play)
        try:
            self._refresh()
            lexicon = self._data.lexicon_for(self._view, self._stamp, self._counted)
            prior = self._ranked(in_play, frozenset()).file_rank()
            graph = self._data.graph_for(self._view, self._stamp)
            parts = file_parts(
                self._facts, mentions_in(message), message, lexicon, self._symbol_at,
                self.read_text, graph.definers_by_name,
            )  # fmt: skip
            return WhereMeasure(parts, self._facts, prior, in_play)
        finally:
            self._index.close()

    def read_text(self, rel: str) -> str | None:
        """A mapped file's text: its buffer, else its disk bytes (None: not mapped, refused)."""
        if rel in self._buffer_texts:
            return self._buffer_texts[rel]
        if rel not in self._view:
            return None
        data = read_source(str(self.folder / rel))
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else None

    def symbol_lines(self, rel: str, names: Sequence[str]) -> list[tuple[str, int, int]]:
        """(name, first line, last line) of each definition of `names` in `rel`, in file
        order (parsing what it needs)."""
        current = self._current(rel)
        if current is None:
            return []
        wanted = frozenset(names) & frozenset(current.names)
        if not wanted:
            return []
        try:
            records = self._with_definitions(rel, wanted).shown_definitions(wanted)
        finally:
            self._index.close()
        return sorted({(r[0], r[1], r[2]) for r in records if r[0] in wanted}, key=lambda r: r[1])

    def _symbol_at(self, rel: str, line: int) -> str | None:
        """The innermost definition of `rel` holding `line` (parsing the file's parts)."""
        current = self._current(rel)
        if current is None or not current.names:
            return None
        names = frozenset(current.names)
        records = self._with_definitions(rel, names).shown_definitions(names)
        holding = [r for r in records if r[1] <= line <= r[2]]
        if not holding:
            return None
        return max(holding, key=lambda r: (r[1], -r[2]))[0]

    def render(
        self,
        files_in_play: Iterable[Path],
        mentioned: set[str],
        max_tokens: int,
        count: Callable[[str], int],
        order: Sequence[tuple[str, Sequence[str]]] = (),
    ) -> str:
        """The map for these files in play and mentioned identifiers, within `max_tokens`;
        the files of `order` (a where-to-look ranking: file, best symbols) come first, in
        that order."""
        in_play = self._in_play(files_in_play)
        try:
            self._refresh()
            ranking = self._ranked(in_play, frozenset(mentioned))
            used = (
                where_first(ranking.used, order, in_play, self._view.names)
                if order
                else ranking.used
            )
            text, size = fit(used, self._block, max_tokens, count, self._prepare)
            if size == len(used):
                shown = set(used)
                everything = used + [p for p in ranking.unused() if p not in shown]
                text, size = fit(everything, self._block, max_tokens, count, self._prepare)
        finally:
            self._index.close()
        self._save()
        return text

    def _prepare(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Parse, in one batch, what the outlines of these (file, name) pairs need."""
        wanted: dict[str, set[str]] = {}
        for rel, name in pairs:
            if rel not in self._buffers:
                wanted.setdefault(rel, set()).add(name)
        self._index.complete_many(wanted)
