"""The request arguments Cairn sets itself, which `extra_params` may not replace."""

from __future__ import annotations

# Request arguments Cairn sets itself; `extra_params` may not replace them.
RESERVED_REQUEST_PARAMS: dict[str, str] = {
    "model": "model",
    "messages": "the context builder",
    "tools": "the mode's tools",
    "stream": "Cairn (always streamed)",
    "stream_options": "Cairn",
    "metadata": "Cairn",
    "timeout": "model_timeout_s",
    "max_retries": "model_retries",
    "num_retries": "model_retries",
    "max_tokens": "max_output_tokens",
    "api_base": "api_base",
    "base_url": "api_base",
    "api_key": "api_key_env",
    "extra_headers": "extra_headers",
    "prompt_cache_key": "Cairn (the session id, for OpenAI's prompt cache)",
}
