"""A file's tags as the map's index stores them, decoded only when read.

An entry keeps the names a file defines apart (joined by NAME_SEPARATOR, or a tuple when
a name holds it) from the rest of its tags — uses, definitions, parts — packed as
`marshal` bytes: loading the index copies bytes, listing what files define splits a
string, and only the files ranking or rendering reads are decoded (`IndexTags`).
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator, Mapping, Sequence

from cairn.repomap.parts import DefRecord, NameParts, PartRecords
from cairn.repomap.store import MARSHAL_VERSION
from cairn.repomap.tags import FileTags

NAME_SEPARATOR = "\0"


def _record(raw: Sequence[object]) -> DefRecord:
    name, first, last, line, signature = raw
    return (str(name), int(first), int(last), int(line), str(signature))  # type: ignore[call-overload]


def _part_records(raw: Mapping[object, Sequence[Sequence[object]]]) -> PartRecords:
    return {int(start): tuple(map(_record, records)) for start, records in raw.items()}  # type: ignore[call-overload]


def _name_parts(raw: Mapping[object, Sequence[Sequence[object]]]) -> NameParts:
    return {
        str(name): tuple((int(start), int(end)) for start, end in spans)  # type: ignore[call-overload]
        for name, spans in raw.items()
    }


Packed = tuple[object, bytes]
"""A file's tags as stored: its names and the `marshal` bytes of the rest."""


def _names_of(packed: object) -> tuple[str, ...]:
    if isinstance(packed, str):
        return tuple(packed.split(NAME_SEPARATOR)) if packed else ()
    return tuple(map(str, packed))  # type: ignore[call-overload]


def pack(tags: FileTags) -> Packed:
    names: object = NAME_SEPARATOR.join(tags.names)
    if any(NAME_SEPARATOR in name for name in tags.names):
        names = tags.names
    rest = (tags.references, tags.definitions, tags.part_records, tags.name_parts)
    return names, marshal.dumps(rest, MARSHAL_VERSION)


def unpack(packed: Packed) -> FileTags:
    references, definitions, part_records, name_parts = marshal.loads(packed[1])
    return FileTags(
        _names_of(packed[0]),
        dict(references),
        None if definitions is None else tuple(map(_record, definitions)),
        None if part_records is None else _part_records(part_records),
        None if name_parts is None else _name_parts(name_parts),
    )


class IndexTags(Mapping[str, FileTags]):
    """The index's tags by path, each file's decoded from its stored bytes when first read."""

    def __init__(self, decoded: dict[str, FileTags], packed: dict[str, Packed]) -> None:
        self._decoded = decoded
        self._packed = packed

    def __getitem__(self, rel: str) -> FileTags:
        tags = self._decoded.get(rel)
        if tags is None:
            tags = self._decoded[rel] = unpack(self._packed.pop(rel))
        return tags

    def peek(self, rel: str) -> FileTags | None:
        """The tags of `rel` without keeping them decoded (for reading every file once)."""
        tags = self._decoded.get(rel)
        if tags is not None:
            return tags
        packed = self._packed.get(rel)
        return None if packed is None else unpack(packed)

    def __contains__(self, rel: object) -> bool:
        return rel in self._decoded or rel in self._packed

    def __iter__(self) -> Iterator[str]:
        yield from list(self._decoded)
        yield from list(self._packed)

    def __len__(self) -> int:
        return len(self._decoded) + len(self._packed)

    def names(self, rel: str) -> tuple[str, ...] | None:
        """The names `rel` defines, without decoding the rest of its tags (None: no tags)."""
        tags = self._decoded.get(rel)
        if tags is not None:
            return tags.names
        packed = self._packed.get(rel)
        return None if packed is None else _names_of(packed[0])

    def packed(self, rel: str) -> Packed | None:
        """The stored bytes of a file not decoded yet (None: decoded, or no tags)."""
        return self._packed.get(rel)
