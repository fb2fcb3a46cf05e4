"""Every framing defect of issue 15, against a real `cairn serve` over stdio and TCP.

Each bad frame is followed, in the same write, by 20 well-formed requests:
all of them are answered, the bad frame's error (id null where the id cannot
be read) comes first, no reply carries a Python traceback, nothing is logged
with one, and at the end the server shuts down cleanly (exit 0).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from cairn.frontends.codes import INVALID_REQUEST, PARSE_ERROR
from cairn.frontends.json_guard import MAX_JSON_DEPTH
from tests.lsp.harness import write_workspace
from tests.lsp.raw_client import RawServer, frame

FOLLOWING_REQUESTS = 20
SEED_BYTES = 4096
DEEP = 100_000
FIRST_CASE_ID = 10_000


def request_body(msg_id: Any, method: str = "cairn/goalTree", **extra: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, **extra}).encode()


# name → (bytes to send, expected error code with id null, or None for no check)
Case = tuple[bytes, int | None]
CASES: dict[str, Callable[[], Case]] = {
    "terabyte length": lambda: (b"Content-Length: 1099511627776\r\n\r\n", INVALID_REQUEST),
    "twenty-digit length": lambda: (
        b"Content-Length: 99999999999999999999\r\n\r\n",
        INVALID_REQUEST,
    ),
    "random bytes": lambda: (os.urandom(SEED_BYTES).replace(b"C", b"c"), None),
    "header without body": lambda: (b"Content-Length: 300\r\n\r\n", PARSE_ERROR),
    "length too large": lambda: (
        b"Content-Length: %d\r\n\r\n" % (len(request_body(1)) + 25) + request_body(1),
        PARSE_ERROR,
    ),
    "length too small": lambda: (b"Content-Length: 10\r\n\r\n" + request_body(1), PARSE_ERROR),
    "negative length": lambda: (b"Content-Length: -5\r\n\r\n{}", PARSE_ERROR),
    "non-numeric length": lambda: (b"Content-Length: ten\r\n\r\n{}", PARSE_ERROR),
    "invalid UTF-8": lambda: (frame(b'{"jsonrpc":"2.0","id":1,"method":"\xff"}'), PARSE_ERROR),
    "100k-deep JSON": lambda: (frame(b"[" * DEEP + b"]" * DEEP), PARSE_ERROR),
    "invalid JSON": lambda: (frame(b'{"jsonrpc": "2.0", "id": 1,'), PARSE_ERROR),
    "batch array": lambda: (frame(b"[" + request_body(1) + b"]"), INVALID_REQUEST),
    "object id": lambda: (frame(request_body({"a": 1})), INVALID_REQUEST),
    "array id": lambda: (frame(request_body([1, 2])), INVALID_REQUEST),
}


@pytest_asyncio.fixture(params=["stdio", "tcp"])
async def server(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RawServer]:
    root = write_workspace(tmp_path / "ws")
    start = RawServer.start if request.param == "stdio" else RawServer.start_tcp
    server = await start(root, tmp_path / "stderr.log")
    try:
        await server.initialize(root)
        yield server
    finally:
        await server.kill()


async def survive(server: RawServer, garbage: bytes, first_id: int) -> list[dict[str, Any]]:
    """Send `garbage` then FOLLOWING_REQUESTS requests in one write; every request must be
    answered with a result. The errors answered with id null, in order."""
    ids = set(range(first_id, first_id + FOLLOWING_REQUESTS))
    await server.write(garbage + b"".join(frame(request_body(msg_id)) for msg_id in sorted(ids)))
    errors: list[dict[str, Any]] = []
    while ids:
        message = await server.read()
        if "method" in message:
            if "id" in message:  # a request from the server
                await server.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            continue
        if message.get("id") is None:
            assert "data" not in message["error"], message  # no traceback on the wire
            errors.append(message["error"])
            continue
        assert message["id"] in ids, message
        assert set(message.get("result") or {}) == {"sessionId", "tree", "rendered"}, message
        ids.discard(message["id"])
    return errors


async def assert_answers_all(server: RawServer, first_id: int) -> None:
    assert await survive(server, b"", first_id) == []


async def next_null_id_error(server: RawServer) -> dict[str, Any]:
    answer = await server.response(None)
    assert "data" not in answer["error"], answer  # no traceback on the wire
    return answer["error"]


async def test_every_bad_frame_is_survived(server: RawServer) -> None:
    await assert_answers_all(server, 1)
    for number, (name, make) in enumerate(CASES.items()):
        garbage, expected = make()
        errors = await survive(server, garbage, FIRST_CASE_ID * (number + 1))
        if expected is not None:
            assert errors and errors[0]["code"] == expected, (name, errors)
    assert await server.stop() == 0
    log = server.stderr.read_text(encoding="utf-8", errors="replace")
    assert "bad framing" in log and "invalid message" in log
    assert "MemoryError" not in log and "OverflowError" not in log
    assert "Traceback" not in log


async def test_frames_a_lenient_reader_accepts(server: RawServer) -> None:
    lowercase = request_body(1)
    await server.write(b"content-length: %d\r\n\r\n" % len(lowercase) + lowercase)
    assert "result" in await server.response(1)
    lf_only = request_body(2)
    await server.write(b"Content-Length: %d\n\n" % len(lf_only) + lf_only)
    assert "result" in await server.response(2)
    typed = request_body(3)
    await server.write(
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
        b"CONTENT-LENGTH:%d\r\n\r\n" % len(typed) + typed
    )
    assert "result" in await server.response(3)
    await assert_answers_all(server, 100)


async def test_invalid_requests_are_answered_with_their_id(server: RawServer) -> None:
    await server.write(frame(json.dumps({"id": 7, "method": "cairn/goalTree"}).encode()))
    missing = await server.response(7)
    assert missing["error"]["code"] == INVALID_REQUEST and "jsonrpc" in missing["error"]["message"]
    await server.write(frame(json.dumps({"jsonrpc": "1.0", "id": 8, "method": "x"}).encode()))
    wrong = await server.response(8)
    assert wrong["error"]["code"] == INVALID_REQUEST and "'1.0'" in wrong["error"]["message"]
    depth = MAX_JSON_DEPTH + 1
    await server.write(frame(request_body(9, params=json.loads("[" * depth + "]" * depth))))
    assert (await next_null_id_error(server))["code"] == PARSE_ERROR
    await assert_answers_all(server, 100)
