"""A message body → its JSON value, or why it is refused: the guard both readers use.

Pure functions, no I/O. A body must be UTF-8 and JSON without NaN or
Infinity (JSON has neither), nested at most `MAX_JSON_DEPTH` deep; otherwise
it is a Parse error (-32700) naming the problem. A message longer than the
reader's limit (the `max_message_bytes` setting) is refused unread with
Invalid Request (-32600) and `too_large`'s sentence. What the value must look
like as a message is each protocol's own rule (`lsp/envelope.py`,
`acp/rpc.py`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cairn.frontends.codes import INVALID_REQUEST, PARSE_ERROR

# Deepest nesting of objects and arrays accepted (LSP and ACP messages nest < 20 deep).
MAX_JSON_DEPTH = 128
OPENERS = (b"[", b"{")

MsgId = int | str


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a body is not a valid message, and whom to tell (`reply`: False for responses)."""

    code: int
    message: str
    msg_id: MsgId | None = None
    reply: bool = True


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def deeper_than(value: object, limit: int) -> bool:
    """True when `value` nests lists/dicts more than `limit` deep (iterative, stops early)."""
    if not isinstance(value, dict | list):
        return False
    stack: list[tuple[dict[str, Any] | list[Any], int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def may_be_deeper_than(body: bytes, limit: int) -> bool:
    """False when the body has too few brackets to nest `limit` deep (the common, cheap case)."""
    return sum(body.count(opener) for opener in OPENERS) > limit


def parse_json(body: bytes) -> object | Refusal:
    """The JSON value of a body, or ParseError naming the problem."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Refusal(PARSE_ERROR, f"the message is not valid UTF-8 (byte {exc.start})")
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        return Refusal(PARSE_ERROR, f"the message nests deeper than {MAX_JSON_DEPTH} levels")
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        return Refusal(PARSE_ERROR, f"the message is not valid JSON: {exc}")
    if may_be_deeper_than(body, MAX_JSON_DEPTH) and deeper_than(value, MAX_JSON_DEPTH):
        return Refusal(PARSE_ERROR, f"the message nests deeper than {MAX_JSON_DEPTH} levels")
    return value


def too_large(size: int | str, limit: int) -> Refusal:
    """The refusal of a message of `size` bytes above the reader's `limit`."""
    return Refusal(
        INVALID_REQUEST,
        f"message of {size} bytes refused: larger than the limit of {limit} bytes "
        "(setting max_message_bytes)",
    )
