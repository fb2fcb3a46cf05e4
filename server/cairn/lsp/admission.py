"""The first message on a TCP or unix-socket connection decides whether it is served.

`cairn serve --tcp` listens on 127.0.0.1, where any local process can
connect: another user, another program, or a web page making the browser
POST to 127.0.0.1. Before a connection is served, `admit` reads its first
message, within `ADMIT_TIMEOUT_S` and at most `FIRST_MESSAGE_LIMIT` bytes:
- its header block must be LSP's: a line that is not `Name: value` (an HTTP
  request line such as `POST / HTTP/1.1`) or a `Host` / `Origin` header
  (browsers always send them, LSP clients never do) is refused without an
  answer;
- over TCP it must be an `initialize` request whose
  `initializationOptions.token` is the server's token (compared with
  `hmac.compare_digest`); anything else is refused with one JSON-RPC error
  naming the fix.
A refused connection is closed by the caller. An admitted one is served from
the bytes `admit` returns: the first message, re-encoded without the token
(so nothing after this module — logs, settings, the manifest — ever sees
it), and whatever followed it. Over a unix socket the file's permissions are
the authentication: only the header check applies (`token` None).
This module reads; it never writes or closes (`cairn.lsp.transport` does).
"""

from __future__ import annotations

import asyncio
import hmac
import json
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from cairn.frontends.codes import INVALID_PARAMS, SERVER_NOT_INITIALIZED
from cairn.frontends.json_guard import MsgId, Refusal
from cairn.lsp.envelope import decode_message, error_response, valid_id
from cairn.lsp.framing import MAX_HEADER_LINE, TOKEN, FrameReader, FramingProblem, frame

if TYPE_CHECKING:
    from cairn.lsp.transport import ByteSource

# How long a new connection has to send its whole first message.
ADMIT_TIMEOUT_S = 10.0
# The largest first message an unauthenticated connection may send (an `initialize` is a few KB).
FIRST_MESSAGE_LIMIT = 1 << 20
# The largest header block before its blank line; more is not an LSP client.
MAX_HEADER_BLOCK = 4 * MAX_HEADER_LINE
# Headers only a web client sends.
WEB_HEADERS = frozenset({b"host", b"origin"})
TOKEN_OPTION = "token"
INITIALIZE = "initialize"


@dataclass(frozen=True, slots=True)
class ServeToken:
    """The secret a TCP client must show, and where its launcher finds it (for the fix)."""

    value: str
    where: str  # "/…/serve/41234.token" or "$CAIRN_SERVE_TOKEN"


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a connection is not served (a log line), and the framed error to answer, if any."""

    reason: str
    answer: bytes | None = None


class Verdict(Enum):
    MORE = "more"  # the header block is not complete yet
    LSP = "lsp"
    FOREIGN = "foreign"


def token_fix(token: ServeToken) -> str:
    """The one sentence that tells a client how to authenticate."""
    return f"pass the token from {token.where} as initializationOptions.{TOKEN_OPTION}"


def foreign_line(line: bytes) -> bool:
    """True for a header-block line that is not an LSP header (`Name: value`, not Host/Origin)."""
    name, colon, _ = line.partition(b":")
    name = name.strip(b" \t")
    return not colon or not TOKEN.fullmatch(name) or name.lower() in WEB_HEADERS


def header_verdict(data: bytes) -> Verdict:
    """Whether the first header block at the start of `data` is LSP's (stray blank lines first
    are skipped, as the frame reader does)."""
    *complete, partial = data[:MAX_HEADER_BLOCK].split(b"\n")
    headers = 0
    for raw in complete:
        line = raw.rstrip(b"\r")
        if not line:
            if headers:
                return Verdict.LSP
            continue
        if foreign_line(line):
            return Verdict.FOREIGN
        headers += 1
    if foreign_start(partial) or len(data) >= MAX_HEADER_BLOCK:
        return Verdict.FOREIGN
    return Verdict.MORE


def foreign_start(partial: bytes) -> bool:
    """True when a line not ended yet already cannot be an LSP header (`GET /`, `Host:`)."""
    name, colon, _ = partial.partition(b":")
    name = name.strip(b" \t\r")
    if len(partial) > MAX_HEADER_LINE or (name and not TOKEN.fullmatch(name)):
        return True
    return bool(colon) and name.lower() in WEB_HEADERS


def refuse(msg_id: MsgId | None, code: int, message: str) -> Rejection:
    """A rejection answered with a JSON-RPC error."""
    return Rejection(message, frame(error_response(msg_id, code, message)))


def check_token(message: dict[str, Any], token: ServeToken) -> dict[str, Any] | Rejection:
    """`message` without its token when it is `initialize` with the right one."""
    method, msg_id = message.get("method"), message.get("id")
    reply_id = msg_id if valid_id(msg_id) else None
    if method != INITIALIZE or "id" not in message:
        what = f"{method} (a notification)" if "id" not in message else method
        first = what if method is not None else "a response"
        reason = f"{first}: the first message must be the initialize request; {token_fix(token)}"
        return refuse(reply_id, SERVER_NOT_INITIALIZED, reason)
    params = message.get("params")
    options = params.get("initializationOptions") if isinstance(params, dict) else None
    seen = options.get(TOKEN_OPTION) if isinstance(options, dict) else None
    if not isinstance(seen, str):
        problem = "missing" if seen is None else "not a string"
        reason = (
            f"initialize: initializationOptions.{TOKEN_OPTION} is {problem}: {token_fix(token)}"
        )
        return refuse(reply_id, INVALID_PARAMS, reason)
    if not hmac.compare_digest(seen.encode("utf-8", "surrogatepass"), token.value.encode()):
        reason = f"initialize: wrong initializationOptions.{TOKEN_OPTION}: {token_fix(token)}"
        return refuse(reply_id, INVALID_PARAMS, reason)
    assert isinstance(params, dict) and isinstance(options, dict)
    rest = {key: value for key, value in options.items() if key != TOKEN_OPTION}
    return {**message, "params": {**params, "initializationOptions": rest}}


async def read_header_block(source: ByteSource) -> bytes | Rejection:
    """The bytes received up to the end of the first header block, if it is LSP's."""
    data = b""
    while (verdict := header_verdict(data)) is Verdict.MORE:
        chunk = await source.read()
        if not chunk:
            return Rejection("the connection closed before its first message")
        data += chunk
    if verdict is Verdict.FOREIGN:
        return Rejection("its first header block is not LSP's (an HTTP request?)")
    return data


async def authenticate(source: ByteSource, data: bytes, token: ServeToken) -> bytes | Rejection:
    """The bytes to serve, when the first message (starting in `data`) has the token."""
    reader = FrameReader(lambda: FIRST_MESSAGE_LIMIT)
    reader.feed(data)
    while (event := reader.next_event()) is None:
        chunk = await source.read()
        if not chunk:
            return Rejection("the connection closed during its first message")
        reader.feed(chunk)
    if isinstance(event, FramingProblem):
        return refuse(None, event.code, f"{event.message}; {token_fix(token)}")
    message = decode_message(event.body)
    if isinstance(message, Refusal):
        return refuse(message.msg_id, message.code, f"{message.message}; {token_fix(token)}")
    checked = check_token(message, token)
    if isinstance(checked, Rejection):
        return checked
    return frame(json.dumps(checked, ensure_ascii=False).encode("utf-8")) + reader.rest()


async def admit(source: ByteSource, token: ServeToken | None) -> bytes | Rejection:
    """The bytes to serve this connection from, or why it is refused (see the module doc)."""
    try:
        async with asyncio.timeout(ADMIT_TIMEOUT_S):
            data = await read_header_block(source)
            if isinstance(data, Rejection) or token is None:
                return data
            return await authenticate(source, data, token)
    except TimeoutError:
        return Rejection(f"no complete first message within {ADMIT_TIMEOUT_S:g} s")
