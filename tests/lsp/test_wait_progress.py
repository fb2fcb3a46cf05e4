"""The engine's waits reach an LSP editor as `$/progress`: the first map of a large tree."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.lsp.harness import Starter

# Files enough for the first scan to report progress (`PROGRESS_MIN_FILES` and more).
TREE_FILES = 600
WAIT_S = 120.0


def tree() -> dict[str, str]:
    body = "".join(f"def f{j}(x):\n    return g{j}(x)\n\n" for j in range(6))
    return {f"pkg{i // 100}/mod{i}.py": body for i in range(TREE_FILES)}


async def test_the_first_map_of_a_large_tree_is_a_progress_bar(start: Starter) -> None:
    client = await start(files=tree())

    def map_bar() -> list[object] | None:
        for reports in client.progress_reports.values():
            first = reports[0] if reports else None
            if isinstance(first, types.WorkDoneProgressBegin) and "repository map" in first.title:
                return list(reports)
        return None

    async def ended() -> list[object]:
        while (bar := map_bar()) is None or not isinstance(bar[-1], types.WorkDoneProgressEnd):
            await asyncio.sleep(0.1)
        return bar

    bar = await asyncio.wait_for(ended(), WAIT_S)
    begin, end = bar[0], bar[-1]
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "Cairn: Building the repository map"
    assert begin.message == f"0 of {TREE_FILES:,} files"
    reports = [r for r in bar[1:-1] if isinstance(r, types.WorkDoneProgressReport)]
    assert reports and all(
        r.message and r.message.endswith(f"of {TREE_FILES:,} files") for r in reports
    )
    assert (
        isinstance(end, types.WorkDoneProgressEnd)
        and end.message == f"{TREE_FILES:,} files scanned"
    )
