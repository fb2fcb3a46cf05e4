"""End-to-end tests of `cairn serve` (pytest-lsp, a raw client, a Node client)."""
