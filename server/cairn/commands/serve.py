"""`cairn serve`: run the language server over stdio (default) or TCP on 127.0.0.1.

Over stdio, stdout *is* the protocol: before anything else is imported, the
real stdout is duplicated for the protocol and fd 1 and `sys.stdout` are
pointed at stderr, so a stray `print` (litellm prints banners) cannot corrupt
the stream. Logs go to stderr.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import BinaryIO

LOCALHOST = "127.0.0.1"
LOG_LEVEL_ENV = "CAIRN_LOG_LEVEL"
DEFAULT_LOG_LEVEL = "INFO"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# pygls logs every message it sends at INFO: too much for a 10 MB document.
QUIET_LOGGERS = ("pygls",)


def guard_stdout() -> BinaryIO:
    """Keep the real stdout for the protocol; everything else printed goes to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "wb")


def configure_logging() -> None:
    level = os.environ.get(LOG_LEVEL_ENV, DEFAULT_LOG_LEVEL).upper()
    logging.basicConfig(stream=sys.stderr, level=level, format=LOG_FORMAT)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLogger().level))


def serve(tcp: bool = False, port: int = 2087) -> None:
    """Serve one client until it exits (stdio), or one TCP connection on 127.0.0.1:`port`."""
    protocol_out = None if tcp else guard_stdout()
    configure_logging()
    from cairn.lsp.server import create_server

    server = create_server()
    if tcp:
        server.start_tcp(LOCALHOST, port)
    else:
        server.start_io(sys.stdin.buffer, protocol_out)
