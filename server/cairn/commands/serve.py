"""`cairn serve`: run the language server over stdio (default) or TCP on 127.0.0.1.

Messages are read by Cairn's own guarded reader (`cairn.lsp.transport`), not
pygls'. The process exits with 0 after `shutdown` + `exit` or the end of the
stream, 1 after `exit` without `shutdown` or a lost connection, and 128 + N
after stop signal N (SIGTERM: 143); every way out stops the running turns and
the MCP servers first (`cairn.lsp.transport.serving`). Over stdio, stdout *is* the protocol: before anything else is imported, the
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
    from cairn.lsp.transport import serve_stdio, serve_tcp

    server = create_server()
    if protocol_out is None:
        code = serve_tcp(server, LOCALHOST, port)
    else:
        code = serve_stdio(server, sys.stdin.buffer, protocol_out)
    if code:
        sys.exit(code)
