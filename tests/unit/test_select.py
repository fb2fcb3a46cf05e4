"""Whole-block selection: budget never exceeded, required blocks kept, degradation, history order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.context.blocks import SECTION_OVERHEAD_TOKENS, Candidate, chat_candidate, section
from cairn.context.degrade import (
    LOG_HEAD_LINES,
    LOG_TAIL_LINES,
    DegradeContext,
    degrade,
)
from cairn.context.manifest import used_tokens
from cairn.context.select import select, share_limit, without_drops
from cairn.errors import BudgetError
from cairn.models.manifest import BlockKind


def words(text: str) -> int:
    """A deterministic stand-in tokenizer: one token per whitespace-separated word."""
    return len(text.split())


def _section(
    priority: int, n: int, *, kind: BlockKind = "text", required: bool = False
) -> Candidate:
    source = "system" if required else "buffer"
    return section(
        source, priority, None, " ".join(["w"] * n), count=words, kind=kind, required=required
    )


class Store:
    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []

    def __call__(self, text: str, kind: str) -> str:
        self.texts.append((text, kind))
        return f"art{len(self.texts)}"


@settings(max_examples=150, deadline=None)
@given(
    available=st.integers(min_value=50, max_value=2_000),
    sizes=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=100),
            st.integers(min_value=1, max_value=900),
            st.sampled_from(["text", "log", "message"]),
        ),
        max_size=25,
    ),
    required=st.lists(st.integers(min_value=1, max_value=15), max_size=3),
)
def test_budget_is_never_exceeded_and_required_blocks_never_dropped(
    available: int, sizes: list[tuple[int, int, str]], required: list[int]
) -> None:
    candidates = [_section(100, n, required=True) for n in required]
    for index, (priority, n, kind) in enumerate(sizes):
        if kind == "message":
            messages = [{"role": "tool", "tool_call_id": f"c{index}", "content": "line\n" * n}]
            candidates.append(
                chat_candidate("history", priority, messages, count=words, seq=float(index))
            )
        else:
            body = "\n".join(f"line {i} error" if i % 7 == 0 else f"line {i}" for i in range(n))
            candidates.append(
                section("buffer", priority, None, body, count=words, kind=kind)  # type: ignore[arg-type]
            )
    selection = select(candidates, available, DegradeContext(count=words, store_artifact=Store()))
    blocks = [c.block for c in selection.candidates]
    assert used_tokens(blocks) == selection.used <= available
    assert all(c.block.included for c in selection.candidates if c.block.required)
    assert all(c.block.reason for c in selection.candidates if not c.block.included)
    cap = share_limit(available)
    assert all(
        c.block.tokens <= cap
        for c in selection.candidates
        if c.block.included and not c.block.required
    )


def test_required_blocks_alone_over_budget_raise_naming_the_numbers() -> None:
    with pytest.raises(BudgetError) as error:
        select([_section(100, 60, required=True), _section(50, 5)], 50, DegradeContext(words))
    # 60 words + the section separator.
    assert "61 tokens" in str(error.value) and "50 tokens are available" in str(error.value)


def test_higher_priority_wins_and_the_drop_reason_names_the_numbers() -> None:
    # 39 words + the section separator = 40 tokens each.
    low, high, middle = _section(10, 39), _section(90, 39), _section(50, 39)
    selection = select([low, high, middle], 100, DegradeContext(words))
    dropped, kept_high, kept_middle = (c.block for c in selection.candidates)
    assert kept_high.included and kept_middle.included and not dropped.included
    assert dropped.reason is not None
    assert dropped.reason.startswith("over budget: needs 40 tokens, 20 left; no smaller form fits")


def test_a_block_over_its_share_is_not_kept_whole_even_if_it_would_fit() -> None:
    selection = select([_section(50, 60)], 100, DegradeContext(words))
    block = selection.candidates[0].block
    assert block.included and block.tokens <= share_limit(100)
    assert block.reason is not None and block.reason.startswith("degraded to one line")


def test_a_block_whose_smallest_form_is_over_its_share_is_dropped() -> None:
    selection = select([_section(50, 30)], 40, DegradeContext(words))
    block = selection.candidates[0].block
    assert not block.included
    assert block.reason is not None and "over its share" in block.reason


PYTHON_SOURCE = "\n".join(
    ["import os", "", "class Engine:", "    def start(self, x):"]
    + [f"        value_{i} = x + {i}  # some arithmetic padding here" for i in range(120)]
    + ["        return x", "", "def helper():", "    return 1", ""]
)


def test_code_over_its_share_degrades_to_an_outline_with_the_artifact_id() -> None:
    store = Store()
    candidate = section(
        "buffer",
        60,
        "File: pkg/engine.py",
        PYTHON_SOURCE,
        count=words,
        ref="pkg/engine.py",
        kind="code",
    )
    selection = select([candidate], 400, DegradeContext(words, store_artifact=store))
    block = selection.candidates[0].block
    assert block.included
    assert "class Engine:" in block.text and "def helper():" in block.text
    assert "value_5" not in block.text
    assert store.texts == [(PYTHON_SOURCE, "text")]
    assert block.artifact_id == "art1" and "art1" in block.text
    assert block.reason is not None and "outline" in block.reason and "art1" in block.reason
    assert block.text.startswith("## File: pkg/engine.py\n")
    assert block.tokens == words(block.text) + SECTION_OVERHEAD_TOKENS <= share_limit(400)


def test_text_without_an_outline_gets_its_one_line_form_not_a_silent_drop() -> None:
    candidate = section(
        "buffer", 60, None, "word " * 500, count=words, ref="notes.unknownext", kind="code"
    )
    selection = select([candidate], 400, DegradeContext(words, store_artifact=Store()))
    block = selection.candidates[0].block
    assert block.included and block.artifact_id == "art1"
    assert block.text.count("\n") == 0 and "notes.unknownext" in block.text
    assert block.reason is not None and block.reason.startswith("degraded to one line")


def test_log_degrades_to_head_tail_and_error_lines() -> None:
    lines = [f"step {i} ok" for i in range(1_000)]
    lines[500] = "Traceback (most recent call last): boom"
    lines[700] = "FAILED tests/test_x.py::test_y"
    text = "\n".join(lines)
    store = Store()
    candidate = section("tool", 30, None, text, count=words, kind="log")
    smaller = degrade(candidate, 600, DegradeContext(words, store_artifact=store))
    assert smaller is not None
    body = smaller.block.text
    assert body.startswith("step 0 ok\n")
    assert f"step {LOG_HEAD_LINES - 1} ok" in body and f"step {LOG_HEAD_LINES} ok" not in body
    assert f"step {1_000 - LOG_TAIL_LINES} ok" in body and "step 999 ok" in body
    assert "501: Traceback (most recent call last): boom" in body
    assert "701: FAILED tests/test_x.py::test_y" in body
    assert "step 600 ok" not in body
    assert smaller.block.artifact_id == "art1" and store.texts == [(text, "log")]
    assert smaller.block.tokens <= 600


def test_log_excerpt_shrinks_until_it_fits() -> None:
    text = "\n".join(f"line number {i} of the output" for i in range(2_000))
    candidate = section("tool", 30, None, text, count=words, kind="log")
    smaller = degrade(candidate, 120, DegradeContext(words))
    assert smaller is not None and smaller.block.tokens <= 120
    assert "line number 0 of" in smaller.block.text and "line number 1999 of" in smaller.block.text


def test_history_is_dropped_oldest_first_and_pairs_stay_whole() -> None:
    def pair(seq: int, n: int) -> Candidate:
        messages = [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{seq}",
                        "type": "function",
                        "function": {"name": "grep", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": f"c{seq}", "content": "x " * n},
        ]
        return chat_candidate("history", 55, messages, count=words, seq=float(seq))

    # Newest first, as the builder lists them; the middle one is too big for what is left.
    newest, middle, oldest = pair(3, 40), pair(2, 45), pair(1, 5)
    selection = select([newest, middle, oldest], 100, DegradeContext(words))
    kept = [c.block.included for c in selection.candidates]
    assert kept == [True, False, False]
    assert selection.candidates[2].block.reason is not None
    assert "older history" in selection.candidates[2].block.reason
    for candidate in selection.candidates:
        assert candidate.messages is not None and len(candidate.messages) == 2


def test_large_tool_output_in_history_becomes_an_excerpt_reusing_its_artifact() -> None:
    output = "\n".join(f"collected item {i}" for i in range(600)) + "\nERROR something broke"
    messages = [
        {"role": "user", "content": "run it"},
        {"role": "tool", "tool_call_id": "c1", "content": output},
    ]
    candidate = chat_candidate(
        "history", 55, messages, count=words, seq=1.0, artifacts={1: "tool-art"}
    )
    store = Store()
    selection = select([candidate], 800, DegradeContext(words, store_artifact=store))
    block = selection.candidates[0]
    assert block.block.included and block.messages is not None
    excerpt = block.messages[1]["content"]
    assert "ERROR something broke" in excerpt and "tool-art" in excerpt
    assert "collected item 300" not in excerpt
    assert store.texts == []  # the tool's own artifact is reused
    assert block.block.tokens <= share_limit(800)


def _history(seq: int, n: int, priority: int = 55) -> Candidate:
    candidate = chat_candidate(
        "history",
        priority,
        [{"role": "assistant", "content": " ".join([f"m{seq}"] * n)}],
        count=words,
        seq=float(seq),
        ref=f"m{seq}",
    )
    candidate.block.zone = "history"
    return candidate


def _log(n: int) -> Candidate:
    lines = "\n".join(f"line {i} error {i}" if i % 7 == 0 else f"line {i}" for i in range(n))
    candidate = section("buffer", 60, "Log", lines, count=words, ref="build.log", kind="log")
    candidate.block.zone = "history"
    return candidate


def test_a_block_degraded_once_keeps_its_form_while_it_fits() -> None:
    ctx = DegradeContext(count=words)
    log = _log(400)
    first = select([log], 600, ctx)
    [chosen] = first.candidates
    assert chosen.block.reason and chosen.block.reason.startswith("degraded")
    # More room now: the whole log would fit, but the cached form is kept.
    again = select([_log(400)], 5_000, ctx, first.memo)
    assert again.candidates[0].block.version == chosen.block.version
    # Without the memo, it is shown whole.
    assert select([_log(400)], 5_000, ctx).candidates[0].block.reason is None


def test_history_dropped_for_the_budget_stays_out_until_the_memo_forgets_drops() -> None:
    ctx = DegradeContext(count=words)
    candidates = [_history(seq, 40) for seq in range(5, 0, -1)]  # newest first
    tight = select(candidates, 140, ctx)
    kept = [c.block.ref for c in tight.candidates if c.block.included]
    assert kept == ["m5", "m4", "m3"]
    # The next call has room again, but m1 and m2 stay out: the cached prefix starts at m3.
    roomy = select([_history(seq, 40) for seq in range(6, 0, -1)], 1_000, ctx, tight.memo)
    assert [c.block.ref for c in roomy.candidates if c.block.included] == ["m6", "m5", "m4", "m3"]
    dropped = next(c for c in roomy.candidates if c.block.ref == "m2")
    assert dropped.block.reason is not None and dropped.block.reason.startswith("over budget")
    # After a cache break the engine forgets the drops: everything fits again.
    fresh = select(
        [_history(seq, 40) for seq in range(6, 0, -1)], 1_000, ctx, without_drops(tight.memo)
    )
    assert all(c.block.included for c in fresh.candidates)
