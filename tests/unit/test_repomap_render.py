"""Rendering the map's file blocks: linear work, same outlines as the pairwise definition."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from cairn.repomap.parts import DefRecord
from cairn.repomap.render import file_block

WORK_PER_RECORD = 3
"""file_block may read each record a few times, never once per chosen record."""


class CountingRecords(Sequence[DefRecord]):
    """A record sequence that counts how many records were read from it."""

    def __init__(self, records: list[DefRecord]) -> None:
        self._records = records
        self.reads = 0

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, index: int) -> DefRecord: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[DefRecord]: ...
    def __getitem__(self, index: int | slice) -> DefRecord | Sequence[DefRecord]:
        if isinstance(index, slice):
            self.reads += len(range(*index.indices(len(self._records))))
        else:
            self.reads += 1
        return self._records[index]

    def __iter__(self) -> Iterator[DefRecord]:
        for record in self._records:
            self.reads += 1
            yield record


def pairwise_block(rel: str, records: Sequence[DefRecord], names: set[str]) -> str:
    """The definition file_block had before it was made linear (quadratic, for reference)."""
    chosen = [r for r in records if r[0] in names]
    if not chosen:
        return ""
    shown: dict[tuple[int, int, int], DefRecord] = {}
    for record in chosen:
        for parent in records:
            if parent[1] <= record[1] and record[2] <= parent[2]:
                shown.setdefault((parent[1], -parent[2], parent[3]), parent)
    lines = [rel + ":"]
    open_ends: list[int] = []
    for record in [shown[key] for key in sorted(shown)]:
        while open_ends and open_ends[-1] < record[1]:
            open_ends.pop()
        lines.append(f"{'  ' * (1 + len(open_ends))}L{record[1]}-{record[2]}  {record[4]}")
        open_ends.append(record[2])
    return "\n".join(lines)


NESTED: list[DefRecord] = [
    ("Store", 1, 40, 1, "class Store:"),
    ("get", 3, 9, 3, "def get(self, key):"),
    ("inner", 4, 5, 4, "def inner():"),
    ("put", 11, 20, 11, "def put(self, key, value):"),
    ("get", 12, 14, 12, "def get():"),
    ("helper", 42, 44, 42, "def helper():"),
    ("x", 46, 46, 46, "x = 1; y = 2"),
    ("y", 46, 46, 46, "x = 1; y = 2"),
    ("Other", 48, 60, 48, "class Other:"),
]


def test_same_outlines_as_the_pairwise_definition() -> None:
    for names in ({"get"}, {"inner"}, {"helper", "put"}, {"x"}, {"y", "Other"}, {"absent"}):
        assert file_block("m.py", NESTED, names) == pairwise_block("m.py", NESTED, names)


def test_many_definitions_of_one_name_cost_linear_work() -> None:
    records = CountingRecords([("x", line, line, line, f"x = {line}") for line in range(1, 6001)])
    block = file_block("many.py", records, {"x"})
    assert block.count("\n") == len(records)
    assert records.reads <= WORK_PER_RECORD * len(records)


def test_a_one_line_bundle_costs_linear_work() -> None:
    count = 20_000
    records = CountingRecords(
        [(f"f{i}", 1, 1, 1, "var a=function(){};var b=function(){} …") for i in range(count)]
    )
    names = {f"f{i}" for i in range(0, count, 20)}  # a thousand names shown from one line
    block = file_block("bundle.js", records, names)
    assert records.reads <= WORK_PER_RECORD * count
    assert block == pairwise_block("bundle.js", records._records[:50], names)
