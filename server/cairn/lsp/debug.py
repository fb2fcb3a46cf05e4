"""`cairn/_debug`: test-only introspection, registered only when `CAIRN_LSP_DEBUG=1`.

Answers whether litellm was loaded when `initialize` was answered (it must not
be) and the server-side handling times of didChange notifications (decode +
handler), which the tests and `python -m bench.lsp_bench` read, and the server's copy
of an open document (`{uri}`), to check incremental sync end to end. `{fail: true}`
raises an unexpected exception, to check that one is logged with its traceback,
answered as an internal error, and that the server keeps serving.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
from typing import TYPE_CHECKING, Any

from cairn.lsp.documents import document_path
from cairn.lsp.methods import DEBUG
from cairn.lsp.params import DebugParams
from cairn.lsp.rpc import parse_params
from cairn.lsp.server import HEAVY_MODULE

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer

DELIBERATE_FAILURE = f"{DEBUG}: a deliberate failure"
MS = 1000.0
P99 = 0.99


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of `values` (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = math.ceil(fraction * len(ordered))
    return ordered[min(len(ordered), max(rank, 1)) - 1]


def debug_info(ls: CairnServer, raw: object) -> dict[str, Any]:
    params = parse_params(DEBUG, DebugParams, raw)
    if params.fail:
        raise RuntimeError(DELIBERATE_FAILURE)
    workspace = ls.host.workspace
    path = document_path(ls, params.uri) if params.uri else None
    buffer = workspace.buffers.get(path) if path is not None else None
    times = list(ls.protocol.did_change_times)
    cpu_times = list(ls.protocol.did_change_cpu_times)
    if params.reset:
        ls.protocol.did_change_times.clear()
        ls.protocol.did_change_cpu_times.clear()
    return {
        "pid": os.getpid(),
        "litellmAtInitialize": ls.litellm_at_initialize,
        "litellmLoaded": HEAVY_MODULE in sys.modules,
        "engineReady": ls.host.ready is not None,
        "openBuffers": len(workspace.buffers),
        "text": buffer.text if buffer is not None else None,
        "didChange": {
            "count": len(times),
            "medianMs": statistics.median(times) * MS if times else 0.0,
            "p99Ms": percentile(times, P99) * MS,
            "maxMs": max(times) * MS if times else 0.0,
            "cpuP99Ms": percentile(cpu_times, P99) * MS,
        },
    }
