"""Incremental changes whose range cannot apply are refused, never applied; the document
is out of sync (the file on disk stands in) until the editor sends its whole text again."""

from __future__ import annotations

from lsprotocol import types

from cairn.lsp.documents import range_problem
from tests.lsp.harness import CairnClient, Starter
from tests.lsp.test_documents import change, open_document, server_text

TEXT = "first line\nsecond line\n"  # 3 lines for LSP: the last one is empty
DISK = "on disk\n"


def full_change(client: CairnClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def test_range_problem_rules() -> None:
    assert range_problem(3, (0, 0), (2, 0)) is None
    assert range_problem(3, (1, 99), (1, 120)) is None  # past the line's end: its end (LSP)
    assert range_problem(3, (3, 0), (3, 0)) is None  # "the start of the next line": the end
    inverted = range_problem(3, (1, 5), (0, 2))
    assert inverted is not None and "inverted" in inverted
    assert range_problem(3, (1, 5), (1, 2)) is not None
    beyond = range_problem(3, (0, 0), (4, 0))
    assert beyond is not None and "beyond" in beyond and "3 lines" in beyond
    assert range_problem(3, (3, 1), (3, 1)) is not None


async def test_an_inverted_range_is_refused_until_a_full_sync(start: Starter) -> None:
    client = await start(files={"doc.txt": DISK})
    uri = client.uri("doc.txt")
    open_document(client, uri, TEXT)
    change(client, uri, 2, (0, 0), (0, 5), "FIRST")
    assert await server_text(client, uri) == "FIRST line\nsecond line\n"

    change(client, uri, 3, (1, 6), (0, 2), "X")  # inverted: never "inserted without deleting"
    assert await server_text(client, uri) is None  # out of sync: the disk text is used
    change(client, uri, 4, (0, 0), (0, 0), "lost ")  # relative to a text the server lacks
    assert await server_text(client, uri) is None
    manifest = await client.request("cairn/contextManifest", {"message": "hi", "uri": uri})
    assert manifest["sessionId"]

    full_change(client, uri, 5, "whole text\n")
    change(client, uri, 6, (0, 0), (0, 5), "WHOLE")
    assert await server_text(client, uri) == "WHOLE text\n"
    assert client.messages == []  # logged, not shown


async def test_a_range_beyond_the_document_is_refused_until_didopen(start: Starter) -> None:
    client = await start(files={"doc.txt": DISK})
    uri = client.uri("doc.txt")
    open_document(client, uri, TEXT)
    change(client, uri, 2, (7, 0), (9, 0), "appended?")
    assert await server_text(client, uri) is None
    open_document(client, uri, "reopened\n", version=3)
    assert await server_text(client, uri) == "reopened\n"
    change(client, uri, 4, (2, 0), (2, 0), "more\n")  # (line count, 0): the end
    assert await server_text(client, uri) == "reopened\nmore\n"
