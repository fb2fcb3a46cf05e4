"""`cairn serve`: run the language server over stdio (default), TCP on 127.0.0.1 or a unix socket.

Messages are read by Cairn's own guarded reader (`cairn.lsp.transport`), not
pygls'. The process exits with 0 after `shutdown` + `exit` or the end of the
stream, 1 after `exit` without `shutdown` or a lost connection, and 128 + N
after stop signal N (SIGTERM: 143); every way out stops the running turns and
the MCP servers first (`cairn.lsp.transport.serving`). Before anything else
is imported, the real stdout is duplicated and fd 1 and `sys.stdout` are
pointed at stderr, so a stray `print` (litellm prints banners) cannot corrupt
what stdout carries: over stdio the protocol, over `--tcp` (port 0, the
system's choice, unless `--port N`) or `--socket PATH` the one line that
says where the server listens and where its token is
(`cairn.lsp.listen.listening_line`), printed once it listens. Every TCP
client must send that token in `initialize` (`cairn.lsp.admission`); a
problem with the port or the socket path is a one-line `ServeError`.
Logs go to stderr.
the stream. Logs go to stderr.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import BinaryIO

from cairn.errors import ServeError

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


def check_options(tcp: bool, port: int | None, socket_path: Path | None) -> None:
    if tcp and socket_path is not None:
        raise ServeError("--tcp and --socket cannot be combined: choose one")
    if port is not None and not tcp:
        raise ServeError("--port needs --tcp: run `cairn serve --tcp --port N`")


def serve(tcp: bool = False, port: int | None = None, socket_path: Path | None = None) -> None:
    """Serve one client until it exits: on stdio, or the first admitted on a socket."""
    check_options(tcp, port, socket_path)
    protocol_out = guard_stdout()
    configure_logging()
    if not tcp and socket_path is None:
        from cairn.lsp.server import create_server
        from cairn.lsp.transport import serve_stdio

        code = serve_stdio(create_server(), sys.stdin.buffer, protocol_out)
    else:
        code = serve_socket(protocol_out, port, socket_path)
    if code:
        sys.exit(code)


def serve_socket(out: BinaryIO, port: int | None, socket_path: Path | None) -> int:
    """Listen (errors before anything is built), say where on `out`, serve; the exit code."""
    from cairn.lsp.listen import listening, listening_line

    with listening(port, socket_path) as opened:
        from cairn.lsp.server import create_server
        from cairn.lsp.transport import serve_listener

        server = create_server()
        out.write(listening_line(opened).encode("utf-8") + b"\n")
        out.flush()
        return serve_listener(server, opened.sock, opened.token)
