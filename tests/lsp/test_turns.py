"""`cairn/turn`: result and `cairn/turnEvent` shapes, progress, cancellation, responsiveness."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.lsp.harness import Starter

TURN_RESULT_KEYS = {"sessionId", "turnId", "finishReason", "text", "usage", "error", "changedFiles"}
TURN_EVENT_KEYS = {
    "sessionId",
    "turnId",
    "kind",
    "text",
    "tool",
    "callId",
    "ok",
    "attempt",
    "waitS",
    "model",
    "usage",
    "detail",
}
SLOW_TEXT = "slowly " * 400
CHUNK_DELAY_S = 0.05


async def test_a_turn_answers_its_result_and_streams_events_and_progress(start: Starter) -> None:
    client = await start(
        script=[
            {
                "text": "Planning.",
                "toolCalls": [{"name": "goal", "arguments": {"add": "step one"}}],
            },
            {"text": "All done here."},
        ]
    )
    mark = client.log.mark()
    result = await client.request("cairn/turn", {"message": "do the thing", "mode": "build"})
    assert set(result) == TURN_RESULT_KEYS
    assert result["finishReason"] == "stop"
    assert "All done here." in result["text"]
    assert set(result["usage"]) == {"inputTokens", "outputTokens", "cost"}
    assert result["usage"]["inputTokens"] > 0

    events = client.log.since(mark, "cairn/turnEvent")
    assert all(set(event) == TURN_EVENT_KEYS for event in events)
    assert {event["turnId"] for event in events} == {result["turnId"]}
    kinds = [event["kind"] for event in events]
    assert {"text", "toolStart", "toolEnd"} <= set(kinds)
    assert kinds[-1] == "end"
    tool_start = next(event for event in events if event["kind"] == "toolStart")
    assert tool_start["tool"] == "goal" and tool_start["callId"]
    tool_end = next(event for event in events if event["kind"] == "toolEnd")
    assert tool_end["ok"] is True

    stats = client.log.since(mark, "cairn/contextStatsChanged")
    assert len(stats) >= 2  # one per model call
    assert stats[-1]["sessionId"] == result["sessionId"]

    bars = [reports for reports in client.progress_reports.values() if reports]
    assert bars, "no $/progress for the turn"
    assert isinstance(bars[0][0], types.WorkDoneProgressBegin)
    assert isinstance(bars[0][-1], types.WorkDoneProgressEnd)


async def test_cancel_request_stops_a_streaming_turn_with_finish_reason_cancelled(
    start: Starter,
) -> None:
    client = await start(
        script=[{"text": SLOW_TEXT, "chunkDelay": CHUNK_DELAY_S}, {"text": "Still usable."}],
        files={"notes.txt": "one\n"},
    )
    mark = client.log.mark()
    msg_id, pending = client.start_request("cairn/turn", {"message": "write a lot"})
    await client.log.wait_for("cairn/turnEvent", mark, lambda e: e["kind"] == "text")

    # While the turn streams, other requests and document sync are served.
    tree = await client.request("cairn/goalTree", {})
    assert set(tree) == {"sessionId", "tree", "rendered"}
    uri = client.uri("notes.txt")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="text", version=1, text="one\n"
            )
        )
    )
    assert (await client.request("cairn/_debug", {"uri": uri}))["text"] == "one\n"
    assert not pending.done()

    client.cancel(msg_id)
    result = await asyncio.wait_for(pending, 30)
    assert result["finishReason"] == "cancelled"
    assert result["text"] and SLOW_TEXT.startswith(result["text"].strip()[:6])

    again = await client.request("cairn/turn", {"message": "and now?"})
    assert again["finishReason"] == "stop"
    assert again["sessionId"] == result["sessionId"]
    assert "Still usable." in again["text"]
