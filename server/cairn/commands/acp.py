"""`cairn acp`: run the Agent Client Protocol agent over stdio until the client closes it.

stdout *is* the protocol (one JSON-RPC message per line): as for `cairn
serve`, the real stdout is kept for it and fd 1 and `sys.stdout` point at
stderr before anything else loads, so a stray `print` (litellm prints
banners) cannot corrupt the stream. Logs go to stderr, which editors show as
the agent's log. A stop signal N (SIGTERM, SIGINT, SIGHUP) ends it like the
client closing stdin, with exit code 128 + N.
"""

from __future__ import annotations

import asyncio
import sys

from cairn.commands.serve import configure_logging, guard_stdout


def acp() -> None:
    """Serve one ACP client on stdin/stdout."""
    protocol_out = guard_stdout()
    configure_logging()
    from cairn.acp.server import serve_stdio

    code = asyncio.run(serve_stdio(sys.stdin.buffer, protocol_out))
    if code:
        sys.exit(code)
