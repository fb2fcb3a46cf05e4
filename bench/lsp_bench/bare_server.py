"""The peer for the initialize benchmark: a bare pygls 2.x server with no features.

Started the same way as `cairn serve` (a Python process speaking LSP on
stdio), so `python -m bench.lsp_bench` can compare initialize round trips.
"""

from __future__ import annotations

from pygls.lsp.server import LanguageServer

if __name__ == "__main__":
    LanguageServer("bare", "0").start_io()
