"""Message bodies → JSON-RPC messages or the error to answer, without a server."""

from __future__ import annotations

import json

import pytest

from cairn.frontends.codes import INVALID_REQUEST, PARSE_ERROR
from cairn.frontends.json_guard import MAX_JSON_DEPTH, Refusal
from cairn.lsp.envelope import decode_message

HUNDRED_THOUSAND = 100_000


def refusal(body: bytes) -> Refusal:
    result = decode_message(body)
    assert isinstance(result, Refusal), result
    return result


def nested(depth: int) -> bytes:
    return b'{"jsonrpc":"2.0","method":"x","params":' + b"[" * depth + b"]" * depth + b"}"


def test_well_formed_messages_pass() -> None:
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "id": "a-1", "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
        {"jsonrpc": "2.0", "id": 3, "result": None},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "bad"}},
    ):
        assert decode_message(json.dumps(message).encode()) == message


def test_invalid_utf8_and_invalid_json_are_parse_errors() -> None:
    bad_utf8 = refusal(b'{"jsonrpc":"2.0","method":"x","params":"\xff\xfe"}')
    assert (bad_utf8.code, bad_utf8.msg_id, bad_utf8.reply) == (PARSE_ERROR, None, True)
    assert "UTF-8" in bad_utf8.message and "byte 40" in bad_utf8.message
    for body in (b"", b"{not json", b'{"a": NaN}', b'{"a": Infinity}', b"\xef\xbb\xbf{}"):
        assert refusal(body).code == PARSE_ERROR, body


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH, HUNDRED_THOUSAND])
def test_nesting_beyond_the_limit_is_refused_at_any_depth(depth: int) -> None:
    found = refusal(nested(depth))  # params at depth 2 + `depth` arrays
    assert found.code == PARSE_ERROR and str(MAX_JSON_DEPTH) in found.message


def test_nesting_within_the_limit_passes() -> None:
    assert isinstance(decode_message(nested(MAX_JSON_DEPTH - 1)), dict)


def test_batches_and_non_objects_are_invalid_requests() -> None:
    batch = refusal(b'[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]')
    assert batch.code == INVALID_REQUEST and "batch" in batch.message
    for body in (b"[]", b'"text"', b"42", b"null"):
        assert refusal(body).code == INVALID_REQUEST


def test_missing_or_wrong_jsonrpc_is_answered_with_the_request_id() -> None:
    missing = refusal(b'{"id": 7, "method": "shutdown"}')
    assert (missing.code, missing.msg_id) == (INVALID_REQUEST, 7) and "missing" in missing.message
    wrong = refusal(b'{"jsonrpc": "1.0", "id": "x", "method": "shutdown"}')
    assert (wrong.code, wrong.msg_id) == (INVALID_REQUEST, "x") and "'1.0'" in wrong.message


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], True, 1.5, None])
def test_a_request_id_must_be_an_integer_or_a_string(bad_id: object) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": bad_id, "method": "cairn/goalTree"}).encode()
    found = refusal(body)
    assert (found.code, found.msg_id, found.reply) == (INVALID_REQUEST, None, True)
    assert '"id" must be an integer or a string' in found.message


def test_method_must_be_a_string() -> None:
    found = refusal(b'{"jsonrpc": "2.0", "method": 42}')
    assert found.code == INVALID_REQUEST and "a number" in found.message


def test_invalid_responses_are_never_answered() -> None:
    for body in (b'{"id": 1, "result": 2}', b'{"jsonrpc": "2.0", "id": [1], "result": 2}'):
        assert refusal(body).reply is False
