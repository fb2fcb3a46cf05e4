"""The trace store: the only code that writes under `<workspace>/.cairn/`.

`TraceStore` manages sessions; `Trace` is one session's durable record
(messages, goal tree, metadata, manifests, artifacts, explore branches).
Skipped (torn or corrupt) lines are logged on the `cairn.trace` logger; like
any library, it has a NullHandler so nothing reaches the terminal unless the
application configures logging (the CLI reports them itself).
"""

import logging

from cairn.trace.files import LineReport, LoadReport
from cairn.trace.store import TraceStore
from cairn.trace.trace import Trace

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = ["LineReport", "LoadReport", "Trace", "TraceStore"]
