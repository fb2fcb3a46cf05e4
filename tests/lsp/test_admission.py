"""`cairn.lsp.admission`'s pure checks: the first header block and the token of `initialize`."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from cairn.frontends.codes import INVALID_PARAMS, SERVER_NOT_INITIALIZED
from cairn.lsp.admission import (
    Rejection,
    ServeToken,
    Verdict,
    admit,
    check_token,
    header_verdict,
)
from cairn.lsp.framing import frame

TOKEN = ServeToken("s3cret-s3cret-s3cret", "/state/serve/1234.token")
LSP_HEADERS = [
    b"Content-Length: 2\r\n\r\n{}",
    b"\r\nContent-Length: 2\n\n{}",
    b"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
]
FOREIGN = [
    b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET / HTTP/1.1\r\n\r\n",
    b"Content-Length: 2\r\nHost: 127.0.0.1\r\n\r\n{}",
    b"Content-Length: 2\r\norigin: http://a.example\r\n\r\n{}",
    b"PRI * HTTP/2.0\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS ClientHello
]


@pytest.mark.parametrize("data", LSP_HEADERS)
def test_lsp_header_blocks_pass_and_wait_until_complete(data: bytes) -> None:
    end = data.rindex(b"\n") + 1
    assert header_verdict(data) is Verdict.LSP
    for cut in range(end):
        assert header_verdict(data[:cut]) is Verdict.MORE, data[:cut]


@pytest.mark.parametrize("data", FOREIGN)
def test_foreign_first_bytes_are_refused(data: bytes) -> None:
    assert header_verdict(data) is Verdict.FOREIGN


def test_an_http_request_line_is_refused_before_its_end() -> None:
    assert header_verdict(b"POST /") is Verdict.FOREIGN
    assert header_verdict(b"Content-Length: 2\r\nHost:") is Verdict.FOREIGN


def test_an_endless_header_block_is_refused() -> None:
    assert header_verdict(b"X-A: 1\r\n" * 10_000) is Verdict.FOREIGN


def initialize(options: Any, msg_id: Any = 3) -> dict[str, Any]:
    params = {"capabilities": {}, "initializationOptions": options}
    return {"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": params}


def refusal_of(message: dict[str, Any]) -> dict[str, Any]:
    checked = check_token(message, TOKEN)
    assert isinstance(checked, Rejection) and checked.answer is not None
    body = checked.answer.split(b"\r\n\r\n", 1)[1]
    return json.loads(body)


def test_the_right_token_is_removed_from_the_options() -> None:
    checked = check_token(initialize({"token": TOKEN.value, "model": "m"}), TOKEN)
    assert checked == initialize({"model": "m"})


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (None, "initializationOptions.token is missing"),
        ({}, "initializationOptions.token is missing"),
        ({"token": 5}, "initializationOptions.token is not a string"),
        ({"token": "s3cret"}, "wrong initializationOptions.token"),
        ({"token": "\ud800"}, "wrong initializationOptions.token"),  # a lone surrogate
    ],
)
def test_a_missing_or_wrong_token_names_the_fix(options: Any, problem: str) -> None:
    answer = refusal_of(initialize(options))
    assert answer["id"] == 3 and answer["error"]["code"] == INVALID_PARAMS
    assert answer["error"]["message"] == (
        f"initialize: {problem}: pass the token from {TOKEN.where} as initializationOptions.token"
    )


def test_any_other_first_message_is_refused() -> None:
    request = refusal_of({"jsonrpc": "2.0", "id": "a", "method": "cairn/goalTree"})
    assert request["id"] == "a" and request["error"]["code"] == SERVER_NOT_INITIALIZED
    note = refusal_of({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    assert note["id"] is None and note["error"]["message"].startswith("initialized (a notif")
    bare = refusal_of({"jsonrpc": "2.0", "method": "initialize", "params": {}})
    assert bare["id"] is None


class Chunks:
    """A ByteSource giving `chunks`, then the end of the stream."""

    def __init__(self, *chunks: bytes) -> None:
        self._chunks = list(chunks)

    async def read(self) -> bytes:
        return self._chunks.pop(0) if self._chunks else b""


def test_admit_replays_the_message_without_token_and_what_followed() -> None:
    first = frame(json.dumps(initialize({"token": TOKEN.value})).encode())
    after = frame(b'{"jsonrpc":"2.0","method":"initialized","params":{}}')
    data = first + after
    admitted = asyncio.run(admit(Chunks(data[:7], data[7:30], data[30:]), TOKEN))
    assert isinstance(admitted, bytes)
    assert admitted == frame(json.dumps(initialize({})).encode()) + after


def test_admit_without_a_token_only_checks_the_headers() -> None:
    data = frame(b'{"jsonrpc":"2.0","id":1,"method":"shutdown"}')
    assert asyncio.run(admit(Chunks(data), None)) == data
    refused = asyncio.run(admit(Chunks(b"GET / HTTP/1.1\r\n\r\n"), None))
    assert isinstance(refused, Rejection) and refused.answer is None
