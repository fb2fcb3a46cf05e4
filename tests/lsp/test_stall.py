"""A large context build never stalls the language server (issue 26, item 7).

Big open buffers make a context build take seconds: the repository map parses
them, the gather ranks them and the assembly redacts and counts them. While
such a build runs, the user types in one of the buffers, a second build is
asked for, and then cheap requests. Before this change the second build's
buffer sync waited on the event loop for the first build's gather and parsed
the new text there, and the first build's assembly ran there too, so the
event loop was busy until the first build answered. Now the sync and the
assembly run on a worker thread: cheap requests sent one after the other are
all answered while the first build still runs. The test asserts the order of
the answers, never a duration.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.lsp.harness import CairnClient, Starter
from tests.lsp.test_documents import open_document

BIG_BUFFERS = 4
FUNCTIONS_PER_BUFFER = 30_000
# Requests answered one after the other while the first build runs (it takes seconds; each
# of them a few milliseconds when the event loop is free).
PINGS = 10


def big_module(index: int, version: int = 1) -> str:
    """About 2 MB of Python: many small functions with distinct names."""
    return "".join(
        f"def handler_{index}_{n}_v{version}(request, limit):\n    return request[:limit]  # {n}\n"
        for n in range(FUNCTIONS_PER_BUFFER)
    )


def replace_all(client: CairnClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def test_a_request_is_answered_while_large_builds_run(
    start: Starter,
) -> None:
    client = await start(files={"app/main.py": "def main():\n    return 1\n"})
    uris = [client.uri(f"app/big{i}.py") for i in range(BIG_BUFFERS)]
    for index, uri in enumerate(uris):
        open_document(client, uri, big_module(index))
    await client.request("cairn/goalTree", {})  # the buffers are open
    builds: list[asyncio.Future[object]] = []
    _, first = client.start_request("cairn/contextManifest", {"message": "handler_0_1"})
    builds.append(first)
    await asyncio.sleep(0)  # sent before the edit
    replace_all(client, uris[0], 2, big_module(0, version=2))
    builds.append(client.start_request("cairn/contextManifest", {"message": "handler_0_2_v2"})[1])

    answered = 0  # requests sent one after the other, each when the last was answered
    while not first.done() and answered < PINGS:
        await client.request("cairn/goalTree", {})
        answered += 1
    assert answered == PINGS and not first.done(), answered
    for build in builds:
        manifest = await build
        assert isinstance(manifest, dict)
        buffers = {b["ref"] for b in manifest["blocks"] if b["source"] == "buffer"}
        assert "app/big0.py" in buffers, buffers
