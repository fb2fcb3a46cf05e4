"""`cairn/contextStats` and `cairn/contextManifest`: exact PROTOCOL.md shapes."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from cairn.agent.parts import REPOMAP_CACHE
from cairn.settings import DEFAULT_TRACE_DIR
from cairn.trace.store import CACHE_DIR
from tests.lsp.harness import Starter

STATS_KEYS = {
    "sessionId",
    "contextWindow",
    "maxOutputTokens",
    "toolSchemaTokens",
    "safetyMargin",
    "availableInput",
    "usedInput",
    "bySource",
    "compaction",
    "cache",
    "tokens",
    "stale",
}
TOKENS_KEYS = {"tokenizer", "exact", "factor", "samples", "estimatedInput"}
COMPACTION_KEYS = {"count", "summaryTokens", "watermark", "inProgress"}
CACHE_KEYS = {"predictedCached", "cachedInput", "cacheWriteInput", "lastBreak"}
MANIFEST_KEYS = {
    "sessionId",
    "callId",
    "turnId",
    "model",
    "availableInput",
    "usedInput",
    "blocks",
    "retryOf",
    "retryReason",
    "cacheBreak",
    "cache",
    "usage",
    "at",
    "extras",
    "stats",
}
BLOCK_KEYS = {"source", "priority", "tokens", "version", "included", "reason", "ref", "zone"}
ZONES = {"tools", "system", "preamble", "history", "tail"}
BAD_CONTEXT_REQUESTS: list[tuple[str, object, str]] = [
    ("cairn/contextStats", {"sessionId": "nope"}, "nope"),
    ("cairn/contextStats", {"sessionId": 7}, "sessionId"),
    ("cairn/contextManifest", {"uri": "file:///etc/passwd"}, "outside"),
    ("cairn/contextManifest", [1, 2], "object"),
]


async def test_context_stats_and_manifest_have_the_protocol_shapes_and_reject_bad_params(
    start: Starter,
) -> None:
    client = await start(files={"app.py": "def main():\n    return 1\n"})
    stats = await client.request("cairn/contextStats", {})
    assert set(stats) == STATS_KEYS
    assert set(stats["compaction"]) == COMPACTION_KEYS
    assert set(stats["cache"]) == CACHE_KEYS
    assert set(stats["tokens"]) == TOKENS_KEYS
    assert stats["availableInput"] == (
        stats["contextWindow"]
        - stats["maxOutputTokens"]
        - stats["toolSchemaTokens"]
        - stats["safetyMargin"]
    )
    assert all(isinstance(v, int) for v in stats["bySource"].values())

    manifest = await client.request(
        "cairn/contextManifest",
        {"sessionId": stats["sessionId"], "message": "explain main", "uri": client.uri("app.py")},
    )
    assert set(manifest) == MANIFEST_KEYS
    assert manifest["sessionId"] == stats["sessionId"]
    assert manifest["blocks"] and all(set(b) == BLOCK_KEYS for b in manifest["blocks"])
    assert {b["zone"] for b in manifest["blocks"]} <= ZONES
    assert set(manifest["cache"]) == {"predictedCached", "zoneHashes", "breakpoints"}
    assert set(manifest["stats"]) == STATS_KEYS
    assert all(set(e) == {"source", "tokens", "blocks", "dropped"} for e in manifest["extras"])
    assert "user" in {b["source"] for b in manifest["blocks"]}

    for method, params, problem in BAD_CONTEXT_REQUESTS:
        with pytest.raises(JsonRpcInvalidParams, match=problem):
            await client.request(method, params)
    assert set(await client.request("cairn/contextStats")) == STATS_KEYS


async def test_the_repository_map_index_is_built_before_the_engine_is_handed_out(
    start: Starter, tmp_path: Path
) -> None:
    client = await start(
        files={
            "pkg/store.py": "class Store:\n    def get(self): ...\n",
            "pkg/cli.py": "from pkg.store import Store\nStore().get()\n",
        }
    )
    await client.request("cairn/goalTree")  # answered once the engine is ready
    cache = tmp_path / "ws" / DEFAULT_TRACE_DIR / CACHE_DIR / REPOMAP_CACHE
    assert [path.suffix for path in cache.iterdir()] == [".marshal"]
    stats = await client.request("cairn/contextStats", {})
    assert stats["bySource"]["repomap"] > 0


async def test_the_manifest_request_references_mentions_and_references(start: Starter) -> None:
    client = await start(files={"app.py": "def main():\n    return 1\n", "docs/a.md": "# A\n"})
    manifest = await client.request(
        "cairn/contextManifest",
        {"message": "explain @app.py, not `@decorator`", "references": [client.uri("docs/a.md")]},
    )
    refs = [(b["ref"], b["included"]) for b in manifest["blocks"] if b["source"] == "reference"]
    assert refs == [("docs/a.md", True), ("app.py", True)]
    with pytest.raises(JsonRpcInvalidParams, match="references"):
        await client.request("cairn/contextManifest", {"references": "app.py"})


async def test_a_refused_link_is_reported_by_the_name_the_user_wrote(
    start: Starter, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".env").write_text("API_TOKEN=do-not-send\n")
    (root / "harmless.txt").symlink_to(root / ".env")
    client = await start(script=[{"text": "I cannot read it."}], files={"app.py": "x = 1\n"})
    # The editor names the link itself (a URI made without following it).
    link = (root / "harmless.txt").absolute().as_uri()
    params = {"message": "summarise @harmless.txt", "references": [link]}
    await client.request("cairn/turn", params)
    for manifest in (
        await client.request("cairn/contextManifest", {}),  # the turn's call
        await client.request("cairn/contextManifest", params),  # a dry run
    ):
        refused = [b for b in manifest["blocks"] if not b["included"] and b["tokens"] == 0]
        named = [b for b in refused if b["source"] in ("reference", "buffer")]
        assert len(named) == 1, named  # one block, not one per name of the file
        (block,) = named
        assert block["source"] == "reference" and block["ref"] == "harmless.txt"
        assert block["target"] == ".env"
        assert "secret file" in block["reason"]
