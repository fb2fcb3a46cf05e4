"""LSP base-protocol framing (`Content-Length` headers), read defensively and written once.

`FrameReader` is a sans-I/O parser: bytes go in with `feed`, whole message
bodies and framing problems come out of `next_event`, one at a time (so a
setting read while one message is handled applies to the next header). It
never trusts the peer:
- header names are case-insensitive, lines may end in CRLF or LF alone, stray
  blank lines between messages are skipped, other headers are ignored;
- a line that is not a header (`Name: value`, or holding `Content-Length`
  anywhere but as its name), a `Content-Length` that is not a plain decimal
  number, a header line longer than `MAX_HEADER_LINE` or a header block
  without `Content-Length` is a problem, and reading resumes at the next
  `Content-Length` in the stream (on the same line, after garbage);
- a length above the limit (a callable: the `max_message_bytes` setting) is
  refused before any of the body is kept, and the body is skipped the same way;
- a body that turns out not to be JSON is searched for a header (a length a
  little too large swallows the start of the next one: `reread_last_body`);
- a body can never contain a header line (JSON forbids raw line breaks inside
  strings, and `Content-Length` outside a string is not JSON), so a body in
  which one appears — a length larger than what was sent, a header without a
  body — is abandoned there and that header is read, even before the declared
  length has arrived.
`frame` is the one place an outgoing header is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from cairn.frontends.codes import PARSE_ERROR
from cairn.frontends.json_guard import too_large

HEADER_NAME = b"content-length"
# Longest header line accepted; a longer one (e.g. random bytes without a line break) is garbage.
MAX_HEADER_LINE = 8 * 1024
# More digits than this is certainly above any limit (and int() is never asked to parse them).
MAX_LENGTH_DIGITS = 18
# How far before a line break a header line found inside a body may start.
HEADER_LOOKBACK = len(HEADER_NAME) + MAX_LENGTH_DIGITS + 32
TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
DIGITS = re.compile(rb"[0-9]+")
# A complete `Content-Length: N` line ending at the search's end position (inside a body).
HEADER_LINE_AT_END = re.compile(rb"content-length[ \t]*:[ \t]*[0-9]+[ \t]*\r?\n\Z", re.IGNORECASE)
EXCERPT_BYTES = 40
# The buffer drops what was consumed once that is larger than this.
COMPACT_AFTER = 1 << 16


class More:
    """Returned by a step that consumed a line and has no event yet: read on."""


MORE = More()


@dataclass(frozen=True, slots=True)
class Frame:
    """One message body, as sent (not decoded)."""

    body: bytes


@dataclass(frozen=True, slots=True)
class FramingProblem:
    """The stream broke the framing rules; `code` is the JSON-RPC error to answer with."""

    code: int
    message: str


Event = Frame | FramingProblem


def frame(body: bytes) -> bytes:
    """`body` with its header, ready to write."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def excerpt(data: bytes) -> str:
    """The start of `data`, printable, for a problem message."""
    text = repr(data[:EXCERPT_BYTES])
    return text + ("…" if len(data) > EXCERPT_BYTES else "")


def parse_length(value: bytes, limit: int) -> int | FramingProblem:
    """The body length a `Content-Length` value declares, or the problem with it."""
    value = value.strip(b" \t")
    if not DIGITS.fullmatch(value):
        return FramingProblem(
            PARSE_ERROR,
            f"invalid Content-Length {excerpt(value)}: expected a decimal number of bytes",
        )
    if len(value) > MAX_LENGTH_DIGITS or int(value) > limit:
        refusal = too_large(value.decode(), limit)
        return FramingProblem(refusal.code, refusal.message)
    return int(value)


class FrameReader:
    """Incremental reader of framed messages; see the module docstring for the rules."""

    def __init__(self, limit: Callable[[], int]) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._pos = 0  # first unconsumed byte (the body's start while reading one)
        self._resync = False
        self._length: int | None = None  # declared by the current header block
        self._headers = 0  # header lines in the current block
        self._body_end: int | None = None  # set while reading a body
        self._scanned = 0  # where the search of the current body for line breaks goes on
        self._last_body: int | None = None  # where the body last returned starts

    def feed(self, data: bytes) -> None:
        consumed = self._pos
        if consumed > COMPACT_AFTER and consumed * 2 > len(self._buffer):
            del self._buffer[:consumed]
            self._pos = 0
            self._scanned = max(0, self._scanned - consumed)
            if self._body_end is not None:
                self._body_end -= consumed
        self._last_body = None
        self._buffer += data

    def reread_last_body(self) -> None:
        """The body just returned is not a message (not JSON): look for a header inside it.

        A length slightly too large swallows the start of the next header; reading
        resumes at the next `Content-Length` after the body's first byte. Call it
        before the next `feed`.
        """
        if self._last_body is not None:
            self._pos = self._last_body + 1
            self._last_body = None
            self._resync = True

    def rest(self) -> bytes:
        """The bytes received and not consumed (after a `Frame`: the start of what follows it)."""
        return bytes(self._buffer[self._pos :])

    @property
    def buffered(self) -> int:
        """Bytes received and not yet consumed."""
        return len(self._buffer) - self._pos

    def next_event(self) -> Event | None:
        """The next body or problem, or None when more bytes are needed."""
        while True:
            if self._resync and not self._find_header():
                return None
            if self._body_end is not None:
                return self._read_body()
            event = self._read_header_line()
            if not isinstance(event, More):
                return event

    # -- headers ---------------------------------------------------------------
    def _read_header_line(self) -> Event | More | None:
        """`MORE` when a header line was consumed and reading goes on."""
        buffer, start = self._buffer, self._pos
        end = buffer.find(b"\n", start)
        if end < 0:
            if len(buffer) - start > MAX_HEADER_LINE:
                return self._garbage(start, f"a header line longer than {MAX_HEADER_LINE} bytes")
            return None
        line = bytes(buffer[start:end]).rstrip(b"\r")
        self._pos = end + 1
        if not line:
            return self._end_of_headers()
        name, colon, value = line.partition(b":")
        name = name.strip(b" \t")
        lowered = name.lower()
        if (
            not colon
            or not TOKEN.fullmatch(name)
            or (lowered != HEADER_NAME and HEADER_NAME in line.lower())
        ):
            # (A `Content-Length` after garbage on the same line is read from there.)
            return self._garbage(start, f"not a header line: {excerpt(line)}")
        self._headers += 1
        if lowered == HEADER_NAME:
            length = parse_length(value, self._limit())
            if isinstance(length, FramingProblem):
                return self._refuse(length)
            self._length = length
        return MORE

    def _end_of_headers(self) -> Event | More:
        if self._headers == 0:
            return MORE  # a stray blank line between messages
        length, self._length, self._headers = self._length, None, 0
        if length is None:
            return FramingProblem(PARSE_ERROR, "a header block without Content-Length")
        self._scanned = self._pos
        self._body_end = self._pos + length
        return MORE

    def _garbage(self, start: int, reason: str) -> FramingProblem:
        """Skip to the next `Content-Length:` after `start` (which may be on the same line)."""
        self._pos = start + 1
        return self._refuse(FramingProblem(PARSE_ERROR, reason))

    def _refuse(self, problem: FramingProblem) -> FramingProblem:
        self._resync = True
        self._length, self._headers = None, 0
        return problem

    def _find_header(self) -> bool:
        """Move to the next `Content-Length` name; False (keeping a possible prefix) if none yet."""
        buffer = self._buffer
        window = bytes(buffer[self._pos :]).lower()
        found = window.find(HEADER_NAME)
        if found < 0:
            self._pos = max(self._pos, len(buffer) - len(HEADER_NAME) + 1)
            return False
        self._pos += found
        self._resync = False
        return True

    # -- body ------------------------------------------------------------------
    def _read_body(self) -> Event | None:
        assert self._body_end is not None
        start, end = self._pos, self._body_end
        header = self._header_line_in_body(start, min(end, len(self._buffer)))
        if header is not None:
            self._body_end = None
            self._pos = header
            return FramingProblem(
                PARSE_ERROR,
                f"a message body of {end - start} bytes was cut short by a new header after "
                f"{header - start} bytes: its Content-Length was larger than what was sent",
            )
        if end > len(self._buffer):
            return None
        self._body_end = None
        self._pos = end
        self._last_body = start
        return Frame(bytes(self._buffer[start:end]))

    def _header_line_in_body(self, start: int, end: int) -> int | None:
        """Where a complete `Content-Length: N` line starts in buffer[start:end], if one does.

        Only line breaks not searched before are looked at (a body arrives in pieces).
        """
        buffer = self._buffer
        newline = buffer.find(b"\n", self._scanned, end)
        while newline >= 0:
            match = HEADER_LINE_AT_END.search(
                buffer, max(start, newline - HEADER_LOOKBACK), newline + 1
            )
            if match is not None:
                return match.start()
            newline = buffer.find(b"\n", newline + 1, end)
        self._scanned = end
        return None
