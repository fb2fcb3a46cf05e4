"""Where the quality bench's main-call tokens go, per part of the request, per call.

`spend(requests, count)` splits every recorded main request (what the
scripted model received, not the manifests) into parts and sums their
tokens: the tool schemas, the system message, each preamble section (by
its `## ` title: rules, profile, repository map), the summary, user
messages, the model's own text, each tool's calls (arguments) and results
(`result: read_file`, `result: goal`, ...), and the tail (the final harness
message). `spend_line` prints the largest parts with their average tokens
per call, so a change to one policy shows where it moved tokens (a smaller
map that only delays a summary moves them into `result: read_file`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from bench.quality.run import Recorded

Count = Callable[[str], int]
TAIL_PREFIX = "[Harness context"
SUMMARY_PREFIX = "[Summary"
SHOWN_PARTS = 10
_SECTION = re.compile(r"\n(?=## )")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return json.dumps(content) if content else ""


def _sections(text: str, prefix: str, count: Count) -> Counter[str]:
    out: Counter[str] = Counter()
    for piece in _SECTION.split(text):
        head = piece.split("\n", 1)[0].strip("# ").strip()
        out[prefix + re.sub(r"[:(].*", "", head).strip()] += count(piece)
    return out


def _request_spend(request: Recorded, count: Count) -> Counter[str]:
    out: Counter[str] = Counter({"tool schemas": count(json.dumps(request.tools))})
    names: dict[str, str] = {}
    last = len(request.messages) - 1
    for index, message in enumerate(request.messages):
        text, role = _text(message), message["role"]
        if role == "system":
            out.update(
                {"system": count(text)} if index == 0 else _sections(text, "preamble: ", count)
            )
        elif role == "assistant":
            for call in message.get("tool_calls") or []:
                name = call["function"]["name"]
                names[call["id"]] = name
                out[f"call: {name}"] += count(call["function"]["arguments"])
            if message.get("content"):
                out["model text"] += count(text)
        elif role == "tool":
            out[f"result: {names.get(message.get('tool_call_id', ''), '?')}"] += count(text)
        elif index == last and text.startswith(TAIL_PREFIX):
            out["tail"] += count(text)
        else:
            out["summary" if text.startswith(SUMMARY_PREFIX) else "user"] += count(text)
    return out


def spend(requests: Sequence[Recorded], count: Count) -> Counter[str]:
    """Tokens per part, summed over `requests` (see the module docstring)."""
    total: Counter[str] = Counter()
    for request in requests:
        total.update(_request_spend(request, count))
    return total


def spend_line(parts: Counter[str], calls: int) -> str:
    """The largest parts: share of all main-call tokens and average tokens per call."""
    total = sum(parts.values()) or 1
    shown = [
        f"{name} {tokens / total * 100:.0f}% ({tokens // max(calls, 1):,}/call)"
        for name, tokens in parts.most_common(SHOWN_PARTS)
    ]
    return "Main-call input by part of the request (as sent): " + ", ".join(shown) + "."
