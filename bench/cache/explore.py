"""The cache bench's explore run: does a branch read its parent's prefix from the cache?

The session is the bench's own (`bench/cache/session.py`, `EXPLORE_TURNS`
turns at the large window) with one `explore` call of three branches per
turn (no background: the branches see the conversation), made after the
first goal's reads, when the history is largest before its first edit. Each
branch reads one or two of the workspace's files and concludes
(`BranchReplies`, seeded by the branch's text, so any code version gets the
same replies).

Per explore call, the parent's last request before it (the one that asked
to explore) is the prefix a branch could re-use: its tools and messages but
its tail. Each branch's first request is priced in the session's order with
the others (`replay.account`: Anthropic's breakpoint rule, OpenAI's
automatic one), and `reuse` is the tokens it read from the cache over the
tokens of that parent prefix. The run's figures: the smallest and the mean
re-use over the branches, and the session's input cost under both
providers' prices (branches included).
"""

from __future__ import annotations

import json
import random
import statistics
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tests.fakes.openai_server import RecordedRequest, Reply

from bench.cache.replay import TAIL_PREFIX, Request, Row, account
from bench.cache.session import Step, build_script, call
from bench.harness.records import Figure

EXPLORE_TURNS = 3
BRANCHES_PER_CALL = 3
# The text every branch's task starts with (`cairn.agent.turn.explore.INSTRUCTION`).
TASK_PREFIX = "You are one branch of a parallel exploration."
DIRECTIONS = (
    "where the budget of a call is decided",
    "how a tool result is shown in the history",
    "what the cache state keeps between calls",
)
Count = Callable[[str], int]


def branch_of(request: RecordedRequest | Request) -> str | None:
    """The task of the branch whose request this is, else None (the parent's)."""
    for message in request.messages:
        content = str(message.get("content") or "")
        if message.get("role") == "user" and content.startswith(TASK_PREFIX):
            return content
    return None


def explore_script(files: list[str], seed: int) -> list[list[Step]]:
    """The bench's session of `EXPLORE_TURNS` turns, each with one explore call of three
    branches before the turn's first edit."""
    script = build_script(files, EXPLORE_TURNS, seed)
    for index, steps in enumerate(script):
        at = next(
            (i for i, s in enumerate(steps) if any(c["name"] == "edit_file" for c in s.tool_calls)),
            len(steps) - 1,
        )
        branches = [f"turn {index + 1}: {d}" for d in DIRECTIONS[:BRANCHES_PER_CALL]]
        explore = Step(
            text="Three directions to check before changing anything.",
            tool_calls=[call("explore", branches=branches)],
        )
        steps.insert(at, explore)
    return script


@dataclass
class BranchReplies:
    """Answers the branches' requests: one or two reads of the workspace, then a conclusion."""

    files: list[str]
    steps: dict[str, list[Reply]] = field(default_factory=dict)

    def _plan(self, task: str) -> list[Reply]:
        rng = random.Random(zlib.crc32(task.encode()))
        reads = [
            Reply(tool_calls=[call("read_file", path=rng.choice(self.files))])
            for _ in range(rng.randint(1, 2))
        ]
        return [*reads, Reply(text=f"Conclusion of {task[-40:]!r}: the code is consistent.")]

    def __call__(self, request: RecordedRequest) -> Reply | None:
        task = branch_of(request)
        if task is None:
            return None
        queue = self.steps.setdefault(task, self._plan(task))
        return queue.pop(0) if len(queue) > 1 else queue[0]


def _tokens(request: Request, count: Count, upto: int) -> int:
    units = [json.dumps(request.tools, sort_keys=True, ensure_ascii=False)]
    units += [json.dumps(m, sort_keys=True, ensure_ascii=False) for m in request.messages[:upto]]
    return count("".join(units))


def parent_prefix(request: Request, count: Count) -> int:
    """Tokens of a request but its tail: what a branch of it could read from the cache."""
    last = request.messages[-1] if request.messages else {}
    tail = str(last.get("content") or "").startswith(TAIL_PREFIX)
    return _tokens(request, count, len(request.messages) - (1 if tail else 0))


@dataclass(frozen=True)
class Reuse:
    """One branch's first request: the parent's prefix and what the caches served of it."""

    prefix: int
    anthropic: int
    openai: int


def reuses(requests: Sequence[Request], rows: Sequence[Row], count: Count) -> list[Reuse]:
    """Per branch, its first request's reads over the parent's prefix (see the docstring)."""
    out: list[Reuse] = []
    seen: set[str] = set()
    parent: Request | None = None
    for request, row in zip(requests, rows, strict=True):
        task = branch_of(request)
        if task is None:
            parent = request if request.kind == "main" else parent
            continue
        if task in seen or parent is None:
            continue
        seen.add(task)
        prefix = parent_prefix(parent, count)
        out.append(Reuse(prefix, min(row.anthropic_read, prefix), min(row.openai_cached, prefix)))
    return out


def explore_report(requests: Sequence[Request], count: Count) -> tuple[list[str], list[Figure]]:
    """The explore run's lines and figures."""
    rows = account(requests, count)
    found = reuses(requests, rows, count)
    if not found:
        return ["(no explore branch requests found)"], []
    share = {
        rule: [getattr(r, rule) / r.prefix for r in found if r.prefix]
        for rule in ("anthropic", "openai")
    }
    total = sum(r.total for r in rows) or 1
    branch_rows = [r for q, r in zip(requests, rows, strict=True) if branch_of(q) is not None]
    lines = [
        f"### Explore: {len(found)} branches over {len(found) // BRANCHES_PER_CALL} explore calls"
        f" ({len(requests)} requests, {len(branch_rows)} of them the branches')",
        "",
        "| | Anthropic rule | OpenAI rule |",
        "| --- | ---: | ---: |",
        f"| parent prefix a branch's first request read from cache, min | "
        f"{min(share['anthropic']):.1%} | {min(share['openai']):.1%} |",
        f"| ... mean | {statistics.mean(share['anthropic']):.1%}"
        f" | {statistics.mean(share['openai']):.1%} |",
        f"| session input served from cache | {sum(r.anthropic_read for r in rows) / total:.1%}"
        f" | {sum(r.openai_cached for r in rows) / total:.1%} |",
        f"| session input cost (input-token units) | {sum(r.anthropic_cost for r in rows):.0f}"
        f" | {sum(r.openai_cost for r in rows):.0f} |",
        f"| of which the branches' requests | {sum(r.anthropic_cost for r in branch_rows):.0f}"
        f" | {sum(r.openai_cost for r in branch_rows):.0f} |",
        "",
        f"Parent prefix per branch (tokens): {', '.join(str(r.prefix) for r in found)}.",
    ]
    figures = [
        Figure(
            f"explore, 3 branches: least parent prefix a branch reads from cache, {label} rule"
            " (higher is better)",
            round(min(share[rule]) * 100, 1),
            "%",
        )
        for rule, label in (("anthropic", "Anthropic"), ("openai", "OpenAI"))
    ]
    figures.append(
        Figure(
            "explore session: input cost, Anthropic prices (input-token units, lower is better)",
            round(sum(r.anthropic_cost for r in rows)),
            "tokens",
        )
    )
    return lines, figures
