"""Ids of messages, turns and tool calls: unique and sortable in creation order."""

from __future__ import annotations

import itertools
import secrets
import time

RANDOM_HEX_BYTES = 3

_sequence = itertools.count()


def new_id(prefix: str) -> str:
    """`<prefix>-<ns time hex>-<sequence>-<random hex>`: unique within and across processes."""
    return f"{prefix}-{time.time_ns():x}-{next(_sequence):x}-{secrets.token_hex(RANDOM_HEX_BYTES)}"


def message_id() -> str:
    return new_id("m")


def turn_id() -> str:
    return new_id("t")
