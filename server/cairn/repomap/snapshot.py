"""What ranking needs, stored beside the map's index so a new process loads it in milliseconds.

The snapshot holds the reference graph's arrays (`repomap_graph`), the lexical
statistics (`repomap_postings`) and the files' PageRank with nothing in play (the
where-to-look prior, `repomap_rank`) of the index's files, with the (size, mtime) stamp each
file had when they were built: a file whose stamp differs now is patched in by the
caller, one file at a time, from its tags. No file's content is in it, only the names
files define, the words of their lexical documents and the numbers ranking uses.

Layout: MAGIC, the header's length (8 bytes), the header (`marshal`: format, folder,
the file, name and word lists, and where each array lies), then the arrays, each aligned
to 8 bytes; they are read through a memory map, so loading costs what ranking touches.
It is written whole by `trace.files.atomic_write` (a crash leaves the old snapshot or
the new one), and a snapshot that does not fit its header, its folder or itself (bad
shapes, indexes out of range, non-finite weights) is ignored: the caller builds afresh.
"""

from __future__ import annotations

import marshal
import mmap
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np

from cairn.repomap.graph import Floats, RankGraph
from cairn.repomap.postings import Postings
from cairn.repomap.store import MARSHAL_VERSION, write_atomic

SNAPSHOT_FORMAT = 1
DOCUMENT_MODULES = (
    "cairn.repomap.documents",
    "cairn.repomap.lexicon",
    "cairn.repomap.message_mentions",
)
"""The modules that say what a file's lexical document holds: a snapshot records a digest
of their source and is ignored when it differs (its statistics were counted otherwise)."""
MAGIC = b"cairn-repomap-rank\n"
LENGTH = struct.Struct("<Q")
ALIGN = 8
Stamp = tuple[int, int]
UNKNOWN_STAMP: Stamp = (-1, -1)
"""The stamp of a file whose tags did not come from disk (an open buffer): never current."""


@dataclass
class Snapshot:
    """A loaded snapshot: the files and their stamps, the graph and the statistics."""

    files: list[str]
    stamps: dict[str, Stamp]
    graph: RankGraph
    postings: Postings
    prior: Floats | None
    """Each file's PageRank with no file in play and nothing mentioned (None: not kept)."""


def write_snapshot(
    path: Path,
    folder: str,
    stamps: Mapping[str, Stamp],
    graph: RankGraph,
    postings: Postings,
    prior: Floats | None = None,
) -> bool:
    """Store a snapshot of `graph` and `postings` (both of the files of `stamps`, sorted);
    False when it could not be written, or they are not of the same files (the map works
    without it)."""
    files, vocab, tables = postings.arrays()
    if files != graph.files or sorted(stamps) != files:
        return False  # not of one state: a later save writes one
    arrays: dict[str, np.ndarray[Any, Any]] = {
        "stamp_size": np.array([stamps[rel][0] for rel in files], dtype=np.int64),
        "stamp_mtime": np.array([stamps[rel][1] for rel in files], dtype=np.int64),
    }
    arrays.update({f"graph.{key}": value for key, value in graph.arrays().items()})
    if prior is not None and len(prior) == len(files):
        arrays["prior"] = prior
    arrays.update({f"lexicon.{key}": value for key, value in tables.items()})
    places: dict[str, tuple[str, int, int]] = {}
    chunks: list[bytes] = []
    at = 0
    for key, value in arrays.items():
        value = _compact(np.ascontiguousarray(value))
        data = value.tobytes()
        places[key] = (value.dtype.str, at, len(value))
        chunks.append(data + b"\0" * (-len(data) % ALIGN))
        at += len(chunks[-1])
    header = marshal.dumps(
        {
            "format": SNAPSHOT_FORMAT,
            "documents": documents_key(),
            "folder": folder,
            "files": files,
            "names": graph.names,
            "vocab": vocab,
            "arrays": places,
        },
        MARSHAL_VERSION,
    )
    start = len(MAGIC) + LENGTH.size + len(header)
    head = MAGIC + LENGTH.pack(len(header)) + header + b"\0" * (-start % ALIGN)
    return write_atomic(path, head + b"".join(chunks))


@cache
def documents_key() -> str:
    """A digest of the source of DOCUMENT_MODULES (empty when it cannot be read)."""
    digest = zlib.crc32(b"")
    for name in DOCUMENT_MODULES:
        try:
            source = Path(str(import_module(name).__file__)).read_bytes()
            digest = zlib.crc32(source, digest)
        except (ImportError, OSError, TypeError):
            return ""
    return f"{digest:08x}"


def _compact(value: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Integers as 32 bits when they fit (half the bytes to map)."""
    wide = value.dtype.kind in "iu" and value.dtype.itemsize > 4
    if wide and (len(value) == 0 or (int(value.min()) >= -(2**31) and int(value.max()) < 2**31)):
        return value.astype(np.int32)
    return value


def read_snapshot(path: Path, folder: str) -> Snapshot | None:
    """The snapshot at `path` for `folder`, or None (missing, foreign or not fitting)."""
    try:
        with open(path, "rb") as handle:
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # missing, unreadable or empty
        return None
    try:
        return _parse(data, folder)
    except (ValueError, TypeError, KeyError, EOFError, IndexError, struct.error):
        return None


def _parse(data: mmap.mmap, folder: str) -> Snapshot | None:
    if data[: len(MAGIC)] != MAGIC:
        return None
    (size,) = LENGTH.unpack_from(data, len(MAGIC))
    begin = len(MAGIC) + LENGTH.size
    header = marshal.loads(data[begin : begin + size])
    if header["format"] != SNAPSHOT_FORMAT or header["folder"] != folder:
        return None
    if header["documents"] != documents_key():
        return None
    start = begin + size
    start += -start % ALIGN
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    for key, (dtype, offset, count) in header["arrays"].items():
        kind = np.dtype(dtype)
        if offset < 0 or count < 0 or start + offset + count * kind.itemsize > len(data):
            raise ValueError(f"array {key} lies outside the snapshot")
        arrays[key] = np.frombuffer(data, dtype=kind, count=count, offset=start + offset)
    files: list[str] = list(header["files"])
    sizes, mtimes = arrays["stamp_size"].tolist(), arrays["stamp_mtime"].tolist()
    if len(sizes) != len(files) or len(mtimes) != len(files):
        raise ValueError("stamps that do not fit the files")
    graph = RankGraph.from_arrays(files, list(header["names"]), _prefixed(arrays, "graph."))
    postings = Postings.from_arrays(files, list(header["vocab"]), _prefixed(arrays, "lexicon."))
    stamps = dict(zip(files, zip(sizes, mtimes, strict=True), strict=True))
    prior = arrays.get("prior")
    if prior is not None and (len(prior) != len(files) or not np.isfinite(prior).all()):
        raise ValueError("a prior that does not fit the files")
    return Snapshot(files, stamps, graph, postings, prior)


def _prefixed(arrays: Mapping[str, np.ndarray[Any, Any]], prefix: str) -> dict[str, Any]:
    return {key[len(prefix) :]: value for key, value in arrays.items() if key.startswith(prefix)}
