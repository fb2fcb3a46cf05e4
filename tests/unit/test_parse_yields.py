"""A parse of a large text lets other threads run (issue 26, item 7).

tree-sitter parses a bytestring in one call that holds the interpreter lock:
for 2 MB of Python that is half a second in which no other thread runs, the
language server's event loop included (a context build's outline of a big
open buffer froze every answer for that long). `parse_bytes` hands the bytes
over in chunks, so the interpreter can switch threads between two of them.
The test counts how often another thread got to run while one document was
parsed; it never measures a duration.
"""

from __future__ import annotations

import threading
import time

from cairn.code.incremental import ParsedDocument

FUNCTIONS = 30_000
# Turns the other thread takes while the parse runs: a single-call parse allows none or
# one (before the call starts); a chunked one dozens.
MIN_TURNS = 10


def big_module() -> str:
    return "".join(
        f"def handler_{n}(request, limit):\n    return request[:limit]\n" for n in range(FUNCTIONS)
    )


def test_another_thread_runs_while_a_large_document_is_parsed() -> None:
    text = big_module()
    started, finished = threading.Event(), threading.Event()
    parsed: list[ParsedDocument] = []

    def parse() -> None:
        started.set()
        parsed.append(ParsedDocument(text, "big.py"))
        finished.set()

    worker = threading.Thread(target=parse)
    worker.start()
    started.wait()
    turns = 0
    while not finished.is_set():
        turns += 1
        time.sleep(0.001)
    worker.join()
    assert parsed[0].tree.root_node.child_count == FUNCTIONS
    assert turns >= MIN_TURNS, turns
