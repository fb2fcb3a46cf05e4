"""How an ACP handler is called: params validated by their model, engine errors translated.

Both steps are the front ends' shared ones: a malformed params object is
Invalid params (-32602) naming each field and its problem
(`cairn.frontends.params`), and a `CairnError` from the engine gets the code
and message of the one error map (`cairn.frontends.error_map`: an invalid
request, such as an unknown session, a bad goal id or a refused path, is
Invalid params; anything else, such as no model configured or a trace locked
by another process, Request failed, -32803). The message always starts with
the method.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from cairn.acp.rpc import Handler
from cairn.frontends.error_map import translated
from cairn.frontends.params import parse_params

M = TypeVar("M", bound=BaseModel)


def bind(method: str, model: type[M], fn: Callable[[M], Awaitable[Any]]) -> Handler:
    """The connection's handler of `method`: parse with `model`, call `fn`, translate errors."""

    async def handler(raw: Any) -> Any:
        params = parse_params(method, model, raw)
        with translated(method):
            return await fn(params)

    return handler
