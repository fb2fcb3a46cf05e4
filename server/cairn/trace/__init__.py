"""The trace store: the only code that writes under `<workspace>/.cairn/`.

`TraceStore` manages sessions; `Trace` is one session's durable record
(messages, goal tree, metadata, manifests, artifacts, explore branches).
"""

from cairn.trace.files import LineReport, LoadReport
from cairn.trace.store import TraceStore
from cairn.trace.trace import Trace

__all__ = ["LineReport", "LoadReport", "Trace", "TraceStore"]
