"""Registering `cairn/*` requests: params validation, engine access, error translation.

Each custom request is an entry of `contract.py`: a params model (`params.py`)
and a result model. The raw params dict is validated with the first; a
malformed one is InvalidParams (-32602) naming the field. The handler returns
the second, sent as its camelCase `wire()` dump. `InvalidRequestError` from the engine (unknown session, bad
goal id, refused path) is InvalidParams too; any other `CairnError` is
RequestFailed (-32803) with its message (no model configured: the editor's
wording of how to set one). Anything else propagates:
pygls logs it with its traceback and answers InternalError (-32603).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from cairn.errors import CairnError, InvalidRequestError, NoModelError
from cairn.lsp.engine_host import REQUEST_FAILED
from cairn.lsp.params import P
from cairn.models.base import WireModel

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.contract import Request
    from cairn.lsp.server import CairnServer

R = TypeVar("R", bound=WireModel)
Result = dict[str, Any]
Handler = Callable[["CairnServer", "EngineApi", P], R | Awaitable[R]]


def describe_validation_error(error: ValidationError) -> str:
    """`field: problem; field: problem` with the wire (camelCase) field names."""
    parts: list[str] = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "params"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_params(method: str, model: type[P], raw: object) -> P:
    """Validate raw JSON params (None means `{}`); InvalidParams naming the problem."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise JsonRpcInvalidParams(f"{method}: params must be an object, got {type(raw).__name__}")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise JsonRpcInvalidParams(f"{method}: {describe_validation_error(exc)}") from None


@contextmanager
def translated_errors(method: str) -> Iterator[None]:
    """Engine errors → JSON-RPC errors naming the problem."""
    try:
        yield
    except InvalidRequestError as exc:
        raise JsonRpcInvalidParams(f"{method}: {exc}") from None
    except NoModelError:
        from cairn.llm.guide import no_model_message

        message = no_model_message(os.environ, "editor")
        raise JsonRpcException(f"{method}: {message}", code=REQUEST_FAILED) from None
    except CairnError as exc:
        raise JsonRpcException(f"{method}: {exc}", code=REQUEST_FAILED) from None


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
