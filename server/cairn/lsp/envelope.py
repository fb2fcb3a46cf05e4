"""A message body → a JSON-RPC 2.0 message object, or the error to answer with.

Pure functions, no I/O. The rules (JSON-RPC 2.0 and LSP's base protocol):
- the body is UTF-8 and JSON (no NaN/Infinity), nested at most `MAX_JSON_DEPTH`
  deep; otherwise ParseError (-32700) (`cairn.frontends.json_guard`, the same
  guard ACP's reader uses);
- it is one object (LSP has no batches: an array is refused), with `"jsonrpc":
  "2.0"`, a string `method` for requests and notifications, an integer or string
  `id` for requests (never an object, array, boolean, fraction or null), and
  `result` or `error` for responses; otherwise InvalidRequest (-32600).
Errors about a request carry its id when it could be read, else null. Nothing
is answered for what looks like a response (JSON-RPC never answers one).
`params` is left to the method's handler, which answers InvalidParams (-32602)
naming the method.
"""

from __future__ import annotations

import json
from typing import Any

from cairn.frontends.codes import INVALID_REQUEST
from cairn.frontends.json_guard import MsgId, Refusal, parse_json

JSONRPC_VERSION = "2.0"


def valid_id(value: object) -> bool:
    """An LSP request id: an integer or a string (bool is an int in Python, not in JSON)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def check_message(value: object) -> Refusal | None:
    """None when `value` is a well-formed request, notification or response."""
    if isinstance(value, list):
        return Refusal(
            INVALID_REQUEST,
            "batch messages (JSON arrays) are not supported by LSP: send one object",
        )
    if not isinstance(value, dict):
        return Refusal(
            INVALID_REQUEST, f"a message must be a JSON object, got {type(value).__name__}"
        )
    has_id = "id" in value
    msg_id = value.get("id")
    reply_id = msg_id if valid_id(msg_id) else None
    if "method" not in value and ("result" in value or "error" in value):
        return _check_response(value, msg_id)
    if value.get("jsonrpc") != JSONRPC_VERSION:
        found = "missing" if "jsonrpc" not in value else f"{value['jsonrpc']!r}"
        return Refusal(INVALID_REQUEST, f'"jsonrpc" must be "2.0" ({found})', reply_id)
    method = value.get("method")
    if not isinstance(method, str):
        what = "missing" if "method" not in value else json_type(method)
        return Refusal(INVALID_REQUEST, f'"method" must be a string ({what})', reply_id)
    if has_id and not valid_id(msg_id):
        return Refusal(
            INVALID_REQUEST,
            f'{method}: "id" must be an integer or a string, got {json_type(msg_id)}',
        )
    return None


def _check_response(value: dict[str, Any], msg_id: object) -> Refusal | None:
    if value.get("jsonrpc") != JSONRPC_VERSION:
        return Refusal(INVALID_REQUEST, 'a response without "jsonrpc": "2.0"', reply=False)
    if not (valid_id(msg_id) or (msg_id is None and "error" in value)):
        return Refusal(
            INVALID_REQUEST, f"a response with an invalid id ({json_type(msg_id)})", reply=False
        )
    return None


def json_type(value: object) -> str:
    """The JSON name of a value's type, with its article ("an object", "a number")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, float):
        return "a fraction" if not value.is_integer() else "a number with a decimal point"
    if isinstance(value, int):
        return "a number"
    return "a string"


def decode_message(body: bytes) -> dict[str, Any] | Refusal:
    """The message object of a body, or the refusal to answer with."""
    value = parse_json(body)
    if isinstance(value, Refusal):
        return value
    refusal = check_message(value)
    if refusal is not None:
        return refusal
    assert isinstance(value, dict)
    return value


def error_response(msg_id: MsgId | None, code: int, message: str) -> bytes:
    """A JSON-RPC error response body (no traceback, no data)."""
    return json.dumps(
        {"jsonrpc": JSONRPC_VERSION, "id": msg_id, "error": {"code": code, "message": message}}
    ).encode("utf-8")
