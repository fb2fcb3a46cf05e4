"""A local OpenAI-compatible chat-completions server on 127.0.0.1, for real-HTTP provider tests.

litellm's `openai/<name>` provider reaches it with `api_base=server.base_url`
and any non-empty key (/work/shared/STACK.md, "Checked for turn 2"). Every
request is recorded (`server.requests`: path, headers, JSON body, arrival
time) so tests can assert on exactly what crossed the wire, and every reply is
scripted: `server.queue(Reply(...), ...)` answers the next requests in order;
when the queue is empty, `server.responder(request)` decides (default: a short
text reply).

A `Reply` is a normal completion (text, reasoning, tool calls — streamed as
SSE `data:` chunks with the tool-call arguments split across chunks and a
final usage chunk when the client asked for `stream_options.include_usage`,
or one JSON body when not streaming) or a fault: an HTTP error status with an
OpenAI-style error body and headers (429 with `Retry-After`, 401, 400
context-length, 500), a hang before answering, a stream cut after some
chunks, malformed tool-call JSON, an empty reply.

Prompt caching is simulated the way OpenAI reports it: the prompt (tools,
then each message, canonical JSON) is compared with every earlier request's;
the longest common prefix, in tokens, rounded down to `CACHE_STEP_TOKENS`
and only from `CACHE_MIN_TOKENS` on, is reported as
`usage.prompt_tokens_details.cached_tokens` (`cache="none"` turns it off).

The same server also answers Anthropic's `POST /v1/messages`
(`tests.fakes.anthropic_wire`; litellm's `anthropic/` provider with
`api_base=server.root_url`), with Anthropic's breakpoint cache simulated
(`tests.fakes.prompt_cache.AnthropicCache`): only prefixes ending at a
`cache_control` block are cached, reported as `cache_read_input_tokens` /
`cache_creation_input_tokens`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from cairn.tokens.counter import count_tokens
from tests.fakes import anthropic_wire
from tests.fakes.http import send_events, send_json
from tests.fakes.prompt_cache import (
    OPENAI_MIN_TOKENS,
    OPENAI_STEP_TOKENS,
    AnthropicCache,
    OpenAICache,
    anthropic_blocks,
    common_prefix_chars,
    openai_cached_tokens,
)

# OpenAI caches prompt prefixes from 1,024 tokens on, in steps of 128 tokens.
CACHE_MIN_TOKENS = OPENAI_MIN_TOKENS
CACHE_STEP_TOKENS = OPENAI_STEP_TOKENS
cached_tokens = openai_cached_tokens
__all__ = ["CACHE_MIN_TOKENS", "OpenAIServer", "Reply", "cached_tokens", "common_prefix_chars"]
# The tokenizer the fixture counts usage with (any fixed one will do).
USAGE_MODEL = "gpt-4o"
# Characters of streamed text per chunk, and pieces each tool call's arguments are split in.
TEXT_CHUNK_CHARS = 12
ARGUMENT_PIECES = 3
CHAT_PATH = "/v1/chat/completions"
CONTEXT_LENGTH_MESSAGE = (
    "This model's maximum context length is {limit} tokens. However, your messages resulted"
    " in {used} tokens. Please reduce the length of the messages."
)

CacheMode = Literal["openai", "none"]


@dataclass
class RecordedRequest:
    """One request as it arrived."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    def header(self, name: str) -> str | None:
        """A request header by name, case-insensitively (clients differ in case)."""
        wanted = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == wanted), None)


@dataclass
class Reply:
    """One scripted answer: a completion, or a fault (`status` != 200, `hang_s`, `cut_after`)."""

    text: str = ""
    reasoning: str = ""
    # {"name": ..., "arguments": dict | str, "id"?: ...}; a str is sent verbatim (may be broken JSON).
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    error: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # Seconds to wait before answering at all (a hung provider).
    hang_s: float = 0.0
    # Close the connection after this many SSE chunks (a stream cut mid-reply).
    cut_after: int | None = None
    finish_reason: str | None = None

    @classmethod
    def rate_limit(cls, retry_after_s: float = 1.0) -> Reply:
        return cls(
            status=429,
            error={"message": "Rate limit reached", "type": "rate_limit_error", "code": None},
            headers={"Retry-After": f"{retry_after_s:g}"},
        )

    @classmethod
    def server_error(cls, status: int = 500) -> Reply:
        return cls(
            status=status, error={"message": "The server had an error", "type": "server_error"}
        )

    @classmethod
    def unauthorized(cls) -> Reply:
        return cls(
            status=401,
            error={
                "message": "Incorrect API key provided",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            },
        )

    @classmethod
    def context_length(cls, limit: int, used: int) -> Reply:
        return cls(
            status=400,
            error={
                "message": CONTEXT_LENGTH_MESSAGE.format(limit=limit, used=used),
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            },
        )


Responder = Callable[[RecordedRequest], Reply]


def _count(text: str) -> int:
    return count_tokens(text, USAGE_MODEL)


def default_responder(request: RecordedRequest) -> Reply:
    return Reply(text="ok")


def prompt_units(body: dict[str, Any]) -> list[str]:
    """The prompt as the provider caches it: tools first, then each message (canonical JSON)."""
    units = [json.dumps(body.get("tools") or [], sort_keys=True, ensure_ascii=False)]
    units += [json.dumps(m, sort_keys=True, ensure_ascii=False) for m in body.get("messages") or []]
    return units


def _pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class OpenAIServer:
    """The server; use as a context manager (`with OpenAIServer() as server:`)."""

    def __init__(self, responder: Responder = default_responder, cache: CacheMode = "openai"):
        self.responder = responder
        self.cache = cache
        self.requests: list[RecordedRequest] = []
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self._openai_cache = OpenAICache(count=_count)
        self.anthropic_cache = AnthropicCache()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def root_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (`.../v1`)."""
        return self.root_url + "/v1"

    # -- scripting -------------------------------------------------------------
    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
        return self.responder(request)

    # -- usage -----------------------------------------------------------------
    @staticmethod
    def _completion_tokens(reply: Reply) -> int:
        output = " ".join(
            [reply.text, reply.reasoning]
            + [json.dumps(c.get("arguments"), ensure_ascii=False) for c in reply.tool_calls]
        )
        return _count(output)

    def _usage(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        units = prompt_units(body)
        with self._lock:
            use = self._openai_cache.account(units)
        prompt = use.total
        cached = use.read if self.cache == "openai" else 0
        completion = self._completion_tokens(reply)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }

    # -- wire shapes -----------------------------------------------------------
    @staticmethod
    def _tool_call_id(index: int, call: dict[str, Any]) -> str:
        return str(call.get("id") or f"call_{index}_{call.get('name', 'tool')}")

    @staticmethod
    def _arguments(call: dict[str, Any]) -> str:
        raw = call.get("arguments", {})
        return raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)

    def completion_body(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.reasoning:
            message["reasoning_content"] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": self._tool_call_id(i, c),
                    "type": "function",
                    "function": {"name": c["name"], "arguments": self._arguments(c)},
                }
                for i, c in enumerate(reply.tool_calls)
            ]
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": self._usage(request.body, reply),
        }

    def stream_chunks(self, request: RecordedRequest, reply: Reply) -> Iterator[dict[str, Any]]:
        base = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": request.model,
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        yield chunk({"role": "assistant", "content": ""})
        if reply.reasoning:
            yield chunk({"reasoning_content": reply.reasoning})
        for start in range(0, len(reply.text), TEXT_CHUNK_CHARS):
            yield chunk({"content": reply.text[start : start + TEXT_CHUNK_CHARS]})
        for index, call in enumerate(reply.tool_calls):
            for position, piece in enumerate(_pieces(self._arguments(call), ARGUMENT_PIECES)):
                entry: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
                if position == 0:
                    entry.update(id=self._tool_call_id(index, call), type="function")
                    entry["function"]["name"] = call["name"]
                yield chunk({"tool_calls": [entry]})
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        yield chunk({}, finish)
        options = request.body.get("stream_options") or {}
        if options.get("include_usage"):
            yield {**base, "choices": [], "usage": self._usage(request.body, reply)}

    # -- HTTP ------------------------------------------------------------------
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                request = RecordedRequest(
                    path=self.path, headers=dict(self.headers.items()), body=body, at=time.time()
                )
                with server._lock:
                    server.requests.append(request)
                server._answer(self, request)

        return Handler

    def _answer(self, handler: BaseHTTPRequestHandler, request: RecordedRequest) -> None:
        reply = self._next_reply(request)
        if reply.hang_s:
            time.sleep(reply.hang_s)
        path = request.path.rstrip("/")
        if path not in (CHAT_PATH, anthropic_wire.MESSAGES_PATH):
            reply = Reply(status=404, error={"message": f"unknown path {request.path}"})
        if reply.status != 200:
            send_json(handler, reply.status, {"error": reply.error or {}}, reply.headers)
            return
        if path == anthropic_wire.MESSAGES_PATH:
            self._answer_anthropic(handler, request, reply)
            return
        if not request.body.get("stream"):
            send_json(handler, 200, self.completion_body(request, reply), reply.headers)
            return
        events = ((None, data) for data in self.stream_chunks(request, reply))
        send_events(handler, reply.headers, reply.cut_after, events, done=b"data: [DONE]\n\n")

    def _answer_anthropic(
        self, handler: BaseHTTPRequestHandler, request: RecordedRequest, reply: Reply
    ) -> None:
        with self._lock:
            use = self.anthropic_cache.account(anthropic_blocks(request.body, _count), time.time())
            number = len(self.requests)
        usage = anthropic_wire.usage_of(use, self._completion_tokens(reply))
        if not request.body.get("stream"):
            body = anthropic_wire.message_body(request.model, number, reply, usage)
            send_json(handler, 200, body, reply.headers)
            return
        events = anthropic_wire.stream_events(request.model, number, reply, usage)
        send_events(handler, reply.headers, reply.cut_after, events, done=b"")
