"""Hostile input over raw stdio: garbage frames, wrong types, missing/huge params, unknown
methods, a handler raising unexpectedly (logged with its traceback, answered -32603), a
10 MB didOpen — each followed by a normal request that is answered correctly, with no
popup storm (errors go to the log, not window/showMessage)."""

from __future__ import annotations

from pathlib import Path

from cairn.files.workspace import path_to_uri
from cairn.lsp.debug import DELIBERATE_FAILURE
from cairn.lsp.params import MAX_MESSAGE_CHARS
from tests.lsp.harness import write_workspace
from tests.lsp.raw_client import RawServer, frame

INTERNAL_ERROR = -32603
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
TEN_MB = 10 * 1024 * 1024


async def assert_still_serving(server: RawServer) -> None:
    answer = await server.request("cairn/goalTree", {})
    assert set(answer["result"]) == {"sessionId", "tree", "rendered"}, answer


async def test_garbage_and_bad_requests_never_stop_the_server(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws", files={"big.txt": "x\n"})
    server = await RawServer.start(root, tmp_path / "stderr.log")
    try:
        await server.initialize(root)
        await assert_still_serving(server)

        for garbage in (
            b"this is not a header\r\n",
            frame(b"{not json"),
            frame(b"[1, 2, 3]"),
            frame(b'"just a string"'),
            frame(b'{"no": "jsonrpc"}'),
            frame(b'{"jsonrpc": "2.0", "method": 42, "params": {}}'),
            frame(
                b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 5}}'
            ),
            frame(b'{"jsonrpc": "2.0", "method": "cairn/diagnostics", "params": {"uri": 1}}'),
            frame(b'{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "nobody"}}'),
        ):
            await server.write(garbage)
            await assert_still_serving(server)

        wrong_types = await server.request(
            "textDocument/codeAction", {"textDocument": 5, "range": "everywhere"}
        )
        assert wrong_types["error"]["code"] == INVALID_PARAMS
        assert "textDocument/codeAction" in wrong_types["error"]["message"]

        not_an_object = await server.request("cairn/goal", "add a goal")
        assert not_an_object["error"]["code"] == INVALID_PARAMS

        missing = await server.request("cairn/goal", omit_params=True)
        assert missing["error"]["code"] == INVALID_PARAMS
        assert "exactly one" in missing["error"]["message"]
        no_params_needed = await server.request("cairn/contextStats", omit_params=True)
        assert no_params_needed["result"]["sessionId"]

        huge = await server.request("cairn/turn", {"message": "x" * (MAX_MESSAGE_CHARS + 1)})
        assert huge["error"]["code"] == INVALID_PARAMS
        assert "message" in huge["error"]["message"]

        crash = await server.request("cairn/_debug", {"fail": True})
        assert crash["error"]["code"] == INTERNAL_ERROR
        assert DELIBERATE_FAILURE in crash["error"]["message"]
        assert "data" not in crash["error"]  # the traceback stays in the log
        await assert_still_serving(server)

        unknown = await server.request("cairn/doesNotExist", {"a": 1})
        assert unknown["error"]["code"] == METHOD_NOT_FOUND
        unknown_standard = await server.request("textDocument/noSuchThing", {})
        assert unknown_standard["error"]["code"] == METHOD_NOT_FOUND
        await assert_still_serving(server)

        uri = path_to_uri(root / "big.txt")
        big = ("0123456789abcdef" * 64 + "\n") * (TEN_MB // 1025)
        await server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "text", "version": 1, "text": big}},
        )
        await assert_still_serving(server)
        debug = await server.request("cairn/_debug", {"uri": uri})
        assert len(debug["result"]["text"]) == len(big)

        popups = [n for n in server.notifications if n["method"] == "window/showMessage"]
        assert popups == []
        assert await server.stop() == 0
    finally:
        if server.process.returncode is None:
            server.process.kill()
    log = server.stderr.read_text(encoding="utf-8", errors="replace")
    assert "bad framing: not a header line" in log  # the garbage was logged, not shown
    assert "invalid message" in log and "invalid params, notification dropped" in log
    failure = log.index(DELIBERATE_FAILURE)
    assert "Traceback" in log[log.rindex("cairn/_debug failed", 0, failure) : failure]
