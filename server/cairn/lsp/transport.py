"""Serving one client over stdio, TCP or a unix socket: Cairn's reader in front of pygls'.

pygls' own readers trust the stream (an unbounded `Content-Length` is
allocated, one bad frame desynchronises it for good), so `cairn serve` runs
this loop instead and keeps pygls for decoding, dispatch and writing: bytes →
`FrameReader` (framing.py) → `decode_message` (envelope.py) →
`CairnProtocol.receive`. A framing problem or an invalid message is answered
with a JSON-RPC error (id null when it could not be read), logged in one line,
and the next message is read; nothing a client sends ends the loop but the end
of the stream or `exit`. Outgoing messages are framed by `FramedWriter`.
Stdin is read by a daemon thread, one chunk each time the loop has nothing
left to handle (so reading never competes with a handler, a fast client
cannot fill memory, and a blocked read never delays the process's exit).
When the connection ends without `shutdown` (`exit` alone, the end of the
stream, or a stop signal: SIGTERM, SIGINT, SIGHUP, `cairn.stop_signals`)
the server still stops its turns and MCP servers before the process exits
(bounded, as `shutdown` does); after a signal it exits with 128 + its number.
On a socket (`serve_listener`), connections are admitted concurrently by
`cairn.lsp.admission` (the token, no HTTP): the first admitted becomes the
session, the others are closed, and a silent one never delays the client's.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from cairn.frontends.codes import INTERNAL_ERROR, PARSE_ERROR
from cairn.lsp.admission import Rejection, ServeToken, admit
from cairn.lsp.envelope import Refusal, decode_message
from cairn.lsp.framing import Frame, FrameReader, FramingProblem, frame
from cairn.stop_signals import exit_code, on_stop_signals

if TYPE_CHECKING:
    from cairn.lsp.protocol import CairnProtocol
    from cairn.lsp.server import CairnServer

logger = logging.getLogger(__name__)

CHUNK_BYTES = 1 << 16
EXIT_OK = 0
EXIT_CONNECTION_LOST = 1
SECOND_CONNECTION = "refusing a second connection: one client at a time"
# How long a build's worker thread may keep the interpreter lock once the event loop
# asks for it (Python's default is 5 ms; each message the loop handles asks many times).
SWITCH_INTERVAL_S = 0.0005


class ByteSource(Protocol):
    async def read(self) -> bytes:
        """The next bytes received; b"" at the end of the stream."""
        ...


class StreamSource:
    """An asyncio stream (a TCP connection)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def read(self) -> bytes:
        return await self._reader.read(CHUNK_BYTES)


class ReplaySource:
    """`prefix` (what admission already read), then the rest of `source`."""

    def __init__(self, prefix: bytes, source: ByteSource) -> None:
        self._prefix = prefix
        self._source = source

    async def read(self) -> bytes:
        if self._prefix:
            data, self._prefix = self._prefix, b""
            return data
        return await self._source.read()


class PipeSource:
    """A blocking binary stream (stdin) read on a daemon thread, one chunk when asked.

    The thread reads only while the event loop waits for input, never while a
    message is handled (a thread reading ahead would contend for the GIL in the
    middle of every handler), and only one chunk at a time (a fast client
    cannot fill memory).
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._wanted = threading.Semaphore(0)
        threading.Thread(target=self._pump, name="cairn-stdin", daemon=True).start()

    def _reader(self) -> Callable[[int], bytes]:
        """`os.read` on the file descriptor: a BufferedReader's lock, held by a read blocked
        at exit, would abort the interpreter's shutdown."""
        try:
            fd = self._stream.fileno()
        except (OSError, ValueError, AttributeError):
            return getattr(self._stream, "read1", self._stream.read)
        return lambda size: os.read(fd, size)

    def _pump(self) -> None:
        read = self._reader()
        while True:
            self._wanted.acquire()
            try:
                chunk = read(CHUNK_BYTES)
            except (OSError, ValueError) as exc:
                logger.error("reading stdin failed: %s", exc)
                chunk = b""
            try:
                self._loop.call_soon_threadsafe(self._queue.put_nowait, chunk)
            except RuntimeError:  # the loop is closed: nobody reads any more
                return
            if not chunk:
                return

    async def read(self) -> bytes:
        self._wanted.release()
        return await self._queue.get()


class FramedWriter:
    """pygls' writer interface (`write(body)`, `close()`), adding the header to each body."""

    def __init__(self, write: Callable[[bytes], object], close: Callable[[], object]) -> None:
        self._write = write
        self._close = close

    @classmethod
    def for_stream(cls, stream: BinaryIO) -> FramedWriter:
        def write(data: bytes) -> None:
            stream.write(data)
            stream.flush()

        return cls(write, stream.close)

    def write(self, data: bytes) -> None:
        """Write one message body (pygls passes the encoded JSON)."""
        self._write(frame(data))

    def close(self) -> None:
        self._close()


def describe(message: dict[str, Any]) -> str:
    """`method` (id …) of a message, for a log line."""
    method = message.get("method", "response")
    return f"{method} (id {message['id']!r})" if "id" in message else str(method)


def deliver(protocol: CairnProtocol, reader: FrameReader, event: Frame | FramingProblem) -> None:
    """Answer a problem, or hand a valid message to the protocol; never raises but SystemExit
    and a lost connection."""
    if isinstance(event, FramingProblem):
        logger.warning("bad framing: %s", event.message)
        protocol.send_error(None, event.code, event.message)
        return
    message = decode_message(event.body)
    if isinstance(message, Refusal):
        logger.warning("invalid message (%d bytes): %s", len(event.body), message.message)
        if message.code == PARSE_ERROR:
            reader.reread_last_body()  # perhaps a wrong length: the next header may be inside
        if message.reply:
            protocol.send_error(message.msg_id, message.code, message.message)
        return
    try:
        protocol.receive(message)
    except (BrokenPipeError, ConnectionError):
        raise
    except Exception as exc:
        logger.exception("%s could not be handled", describe(message))
        if "id" in message and "method" in message:
            reason = f"{message['method']}: internal error: {type(exc).__name__}: {exc}"
            protocol.send_error(message["id"], INTERNAL_ERROR, reason)


async def run_connection(server: CairnServer, source: ByteSource, writer: FramedWriter) -> int:
    """Serve one connection until its end or `exit`: the process exit code."""
    protocol = server.protocol
    protocol.connect(writer)
    reader = FrameReader(server.message_limit)
    try:
        while chunk := await source.read():
            reader.feed(chunk)
            while (event := reader.next_event()) is not None:
                deliver(protocol, reader, event)
                await asyncio.sleep(0)  # let replies and running handlers through
    except SystemExit as exc:  # `exit`: pygls closes the writer and exits with 0 or 1
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except (BrokenPipeError, ConnectionError) as exc:
        logger.error("the connection to the client is lost: %s", exc)
        return EXIT_CONNECTION_LOST
    logger.info("the client closed the stream")
    return EXIT_OK


async def serving(server: CairnServer, connect: Callable[[], Awaitable[int]]) -> int:
    """Await the connection `connect()` makes (its exit code) until it ends or a stop signal
    cancels it; then stop everything the server started, either way."""
    task = asyncio.current_task()
    assert task is not None
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    with on_stop_signals(asyncio.get_running_loop(), lambda _: task.cancel()) as received:
        try:
            return await connect()
        except asyncio.CancelledError:
            if not received:
                raise
            task.uncancel()  # the cancel was the signal's: the stop below must still run
            return exit_code(received[0])
        finally:
            await server.aclose()  # `exit`, EOF or a signal without `shutdown`: MCP stops too
            server.shutdown()


def serve_stdio(server: CairnServer, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Serve the client on stdin/stdout; the exit code."""

    def connect() -> Awaitable[int]:
        return run_connection(server, PipeSource(stdin), FramedWriter.for_stream(stdout))

    return asyncio.run(serving(server, connect))


def serve_listener(server: CairnServer, sock: socket.socket, token: ServeToken | None) -> int:
    """Serve the first connection admitted on a listening socket, then stop; the exit code."""
    return asyncio.run(serving(server, lambda: first_admitted(server, sock, token)))


async def first_admitted(server: CairnServer, sock: socket.socket, token: ServeToken | None) -> int:
    """Admit connections concurrently (`cairn.lsp.admission`); serve the first admitted one.

    A refused connection is closed without counting; once a session runs, every
    other connection (still authenticating, or new) is closed. The exit code is
    the session's.
    """
    finished: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    waiting: set[asyncio.StreamWriter] = set()
    session = False

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal session
        if session:
            logger.warning(SECOND_CONNECTION)
            writer.close()
            return
        waiting.add(writer)
        try:
            source = StreamSource(reader)
            admitted = await admit(source, token)
            if isinstance(admitted, Rejection):
                logger.warning("refused a connection: %s", admitted.reason)
                if admitted.answer:
                    writer.write(admitted.answer)  # flushed by close()
                return
            waiting.discard(writer)
            if session:
                logger.warning(SECOND_CONNECTION)
                return
            session = True
            for other in list(waiting):  # still authenticating: too late
                other.close()
            framed = FramedWriter(writer.write, writer.close)
            code = await run_connection(server, ReplaySource(admitted, source), framed)
            if not finished.done():
                finished.set_result(code)
        except (ConnectionError, OSError) as exc:
            logger.warning("a connection was lost before it was served: %s", exc)
        finally:
            waiting.discard(writer)
            writer.close()

    start = asyncio.start_unix_server if sock.family == socket.AF_UNIX else asyncio.start_server
    listener = await start(on_connect, sock=sock)
    logger.info("serving on %s", sock.getsockname())
    try:
        async with listener:
            return await finished
    finally:
        for writer in waiting:
            writer.close()
