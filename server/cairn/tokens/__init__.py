"""Tokens at the bottom layer: counting with the model's tokenizer, and what a model accepts.

`cairn.tokens.counter` counts (offline tiktoken, cached by content hash);
`cairn.tokens.model_info` reads litellm's model map without importing litellm.
Both are used by the context engine and the model runtime; this package
imports nothing of Cairn's above it. Import the submodules directly.
"""
