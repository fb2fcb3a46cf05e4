"""HTTP plumbing of the local test server: a JSON answer, or server-sent events cut on demand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any


def send_json(
    handler: BaseHTTPRequestHandler, status: int, body: dict[str, Any], headers: dict[str, str]
) -> None:
    data = json.dumps(body).encode()
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
        handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError, OSError):
        return


def send_events(
    handler: BaseHTTPRequestHandler,
    headers: dict[str, str],
    cut_after: int | None,
    events: Iterator[tuple[str | None, dict[str, Any]]],
    *,
    done: bytes,
) -> None:
    """Send server-sent events (`event:` lines when named), closing after `cut_after` of them."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.end_headers()
    try:
        for number, (event, data) in enumerate(events):
            if cut_after is not None and number >= cut_after:
                handler.wfile.flush()
                handler.close_connection = True
                handler.connection.shutdown(2)
                return
            head = f"event: {event}\n" if event else ""
            handler.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
            handler.wfile.flush()
        if done:
            handler.wfile.write(done)
            handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError, OSError):
        return
    handler.close_connection = True
