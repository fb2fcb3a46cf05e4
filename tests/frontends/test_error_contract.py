"""Both front ends answer the same malformed input with the same error code and message.

`cairn serve` (LSP, framed) and `cairn acp` (ACP, one JSON line each) run over
their real stdio on one workspace; each case goes through both, and the
answers must agree: the code, and the message after the method's name (the
methods differ by protocol). Each front end must also go on serving.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pytest_asyncio

from cairn.frontends.codes import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
)
from cairn.frontends.json_guard import MAX_JSON_DEPTH
from cairn.settings import MIN_MAX_MESSAGE_BYTES
from tests.acp.raw_client import RawAcpClient
from tests.lsp.harness import write_workspace
from tests.lsp.raw_client import RawServer, frame

LIMIT = MIN_MAX_MESSAGE_BYTES
NESTING = 200
# A session id no session has.
NEVER = "never-was"


class FrontEnd(Protocol):
    """One front end under test, driven by the same cases."""

    # The method a session-scoped request of this protocol is sent to.
    session_method: str

    async def call(self, params: Any) -> dict[str, Any]:
        """The error answering `session_method` with `params`."""
        ...

    async def send_raw(self, body: bytes) -> dict[str, Any]:
        """The error (id null) answering one message body sent as it is."""
        ...

    async def serving(self) -> bool:
        """True when a well-formed request is still answered."""
        ...


class Lsp:
    session_method = "cairn/goalTree"

    def __init__(self, server: RawServer) -> None:
        self.server = server

    async def call(self, params: Any) -> dict[str, Any]:
        return (await self.server.request(self.session_method, params))["error"]

    async def send_raw(self, body: bytes) -> dict[str, Any]:
        await self.server.write(frame(body))
        return (await self.server.response(None))["error"]

    async def serving(self) -> bool:
        return "result" in await self.server.request("cairn/sessions", {})


class Acp:
    session_method = "_cairn/goalTree"

    def __init__(self, client: RawAcpClient) -> None:
        self.client = client

    async def call(self, params: Any) -> dict[str, Any]:
        answer = await self.client.response(self.client.send(self.session_method, params))
        return answer["error"]

    async def send_raw(self, body: bytes) -> dict[str, Any]:
        mark = self.client.mark()
        self.client.write_line(body.decode("utf-8"))
        answer = await self.client.wait(lambda m: m.get("id", 0) is None and "error" in m, mark)
        return answer["error"]

    async def serving(self) -> bool:
        return "sessions" in await self.client.call("session/list", {})


@dataclass
class FrontEnds:
    lsp: Lsp
    acp: Acp


@pytest_asyncio.fixture
async def both(tmp_path: Path) -> AsyncIterator[FrontEnds]:
    root = write_workspace(tmp_path / "ws", settings={"max_message_bytes": LIMIT})
    server = await RawServer.start(root, tmp_path / "lsp-stderr.log")
    client = await RawAcpClient.start(root)
    try:
        await server.initialize(root)
        await client.initialize()
        yield FrontEnds(Lsp(server), Acp(client))
    finally:
        await server.kill()
        await client.close()


def request_body(params: str) -> bytes:
    return f'{{"jsonrpc":"2.0","id":7,"method":"session/list","params":{params}}}'.encode()


def oversize_body() -> bytes:
    padding = "x" * (LIMIT + 1)
    return request_body(json.dumps({"padding": padding}))


def answer(front_end: FrontEnd, error: dict[str, Any]) -> tuple[int, str]:
    """(code, message without the method's name) of one error."""
    message = str(error["message"]).removeprefix(f"{front_end.session_method}: ")
    return error["code"], message


@dataclass(frozen=True)
class Case:
    name: str
    params: Any = None
    body: bytes | None = None


CASES = [
    Case("params not an object", params=[1, 2]),
    Case("a field of the wrong type", params={"sessionId": 5}),
    Case("unknown session", params={"sessionId": NEVER}),
    Case("NaN", body=request_body('{"limit": NaN}')),
    Case("Infinity", body=request_body('{"limit": -Infinity}')),
    Case("nested 200 deep", body=request_body("[" * NESTING + "]" * NESTING)),
    Case("larger than max_message_bytes", body=oversize_body()),
]
EXPECTED_CODES = {
    "params not an object": INVALID_PARAMS,
    "a field of the wrong type": INVALID_PARAMS,
    "unknown session": INVALID_PARAMS,
    "NaN": PARSE_ERROR,
    "Infinity": PARSE_ERROR,
    "nested 200 deep": PARSE_ERROR,
    "larger than max_message_bytes": INVALID_REQUEST,
}


async def run(front_end: FrontEnd, case: Case) -> tuple[int, str]:
    if case.body is not None:
        return answer(front_end, await front_end.send_raw(case.body))
    return answer(front_end, await front_end.call(case.params))


async def test_malformed_input_gets_the_same_code_and_message_from_both(both: FrontEnds) -> None:
    for case in CASES:
        from_lsp = await run(both.lsp, case)
        from_acp = await run(both.acp, case)
        assert from_lsp == from_acp, case.name
        assert from_lsp[0] == EXPECTED_CODES[case.name], (case.name, from_lsp)
    assert await both.lsp.serving() and await both.acp.serving()


async def test_the_messages_name_the_problem(both: FrontEnds) -> None:
    depth = await run(both.acp, Case("deep", body=request_body("[" * NESTING + "]" * NESTING)))
    assert depth == (PARSE_ERROR, f"the message nests deeper than {MAX_JSON_DEPTH} levels")
    nan = await run(both.lsp, Case("nan", body=request_body('{"limit": NaN}')))
    assert nan == (PARSE_ERROR, "the message is not valid JSON: NaN is not JSON")
    size = len(oversize_body())
    assert await run(both.acp, Case("big", body=oversize_body())) == (
        INVALID_REQUEST,
        f"message of {size} bytes refused: larger than the limit of {LIMIT} bytes "
        "(setting max_message_bytes)",
    )
    unknown = await run(both.lsp, Case("unknown", params={"sessionId": NEVER}))
    assert unknown == (INVALID_PARAMS, f"unknown session: {NEVER!r}")
