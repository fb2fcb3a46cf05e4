"""The language server: pygls 2.x, one module per LSP feature, translation only.

`create_server()` (in `server.py`) builds the server; `cairn serve` runs it
through `transport.py`, Cairn's own guarded reader (`framing.py`,
`envelope.py`, `lifecycle.py`) in front of pygls' decoding and dispatch.
Handlers turn protocol messages into `EngineApi` calls and results back into
the PROTOCOL.md shapes; no agent logic lives here.
"""
