"""Registering `cairn/*` requests: params validation, engine access, error translation.

Each custom request is an entry of `contract.py`: a params model (`params.py`)
and a result model. The raw params dict is validated with the first
(`cairn.frontends.params`: a malformed one is InvalidParams, -32602, naming
the field). The handler returns the second, sent as its camelCase `wire()`
dump. A `CairnError` from the engine is answered by the front ends' one error
map (`cairn.frontends.error_map`: an invalid request, such as an unknown
session or a bad goal id, -32602; anything else -32803 RequestFailed; no model
configured: the editor's wording of how to set one). `lsp_errors` hands the shared core's
`RpcError` to pygls with its code and message. Anything else propagates:
pygls logs it with its traceback and answers InternalError (-32603).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from pygls.exceptions import JsonRpcException

from cairn.frontends import error_map
from cairn.frontends import params as shared_params
from cairn.frontends.faults import RpcError
from cairn.lsp.params import P
from cairn.models.base import WireModel

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.contract import Request
    from cairn.lsp.server import CairnServer

R = TypeVar("R", bound=WireModel)
Result = dict[str, Any]
Handler = Callable[["CairnServer", "EngineApi", P], R | Awaitable[R]]


@contextmanager
def lsp_errors() -> Iterator[None]:
    """The shared core's `RpcError` → pygls' `JsonRpcException` with the same code and message."""
    try:
        yield
    except RpcError as error:
        raise JsonRpcException(error.message, code=error.code, data=error.data) from None


def parse_params(method: str, model: type[P], raw: object) -> P:
    """Validate raw JSON params (None means `{}`); InvalidParams naming the problem."""
    with lsp_errors():
        return shared_params.parse_params(method, model, raw)


@contextmanager
def translated_errors(method: str) -> Iterator[None]:
    """Engine errors → JSON-RPC errors naming the problem (the front ends' one error map)."""
    with lsp_errors(), error_map.translated(method):
        yield


RequestHandler = Callable[["CairnServer", object], Awaitable[Result]]


def cairn_request(request: Request[P, R]) -> Callable[[Handler[P, R]], RequestHandler]:
    """`fn(ls, engine, params) -> result model` (sync or async) → the pygls handler of `request`."""
    method = request.method

    def decorator(fn: Handler[P, R]) -> RequestHandler:
        async def handler(ls: CairnServer, raw: object) -> Result:
            params = parse_params(method, request.params, raw)
            engine = await ls.host.get()
            with translated_errors(method):
                result = fn(ls, engine, params)
                if inspect.isawaitable(result):
                    result = await result
            return result.wire()

        handler.__name__ = handler.__qualname__ = fn.__name__
        return handler

    return decorator
