"""How an ACP handler is called: params validated by their model, engine errors translated.

A malformed params object is Invalid params (-32602) naming each field and
its problem. From the engine: an unknown session is Resource not found
(-32002, ACP's code for it), any other `InvalidRequestError` (a bad goal id,
a refused path) is Invalid params, and any other `CairnError` (no model
configured, a trace locked by another process) is Internal error (-32603)
with its one-line message. The message always starts with the method.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from cairn.acp.rpc import INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND, Handler, RpcError
from cairn.errors import CairnError, InvalidRequestError, UnknownSessionError

M = TypeVar("M", bound=BaseModel)


def describe(error: ValidationError) -> str:
    """`field: problem; field: problem` with the wire (camelCase) field names."""
    parts: list[str] = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "params"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse(method: str, model: type[M], raw: object) -> M:
    """Validate raw params (absent means `{}`); Invalid params naming the problem."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise RpcError(
            INVALID_PARAMS, f"{method}: params must be an object, got {type(raw).__name__}"
        )
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise RpcError(INVALID_PARAMS, f"{method}: {describe(error)}") from None


@contextmanager
def translated(method: str) -> Iterator[None]:
    """Engine errors → JSON-RPC errors naming the method and the problem."""
    try:
        yield
    except UnknownSessionError as error:
        raise RpcError(RESOURCE_NOT_FOUND, f"{method}: {error}") from None
    except InvalidRequestError as error:
        raise RpcError(INVALID_PARAMS, f"{method}: {error}") from None
    except CairnError as error:
        raise RpcError(INTERNAL_ERROR, f"{method}: {error}") from None


def bind(method: str, model: type[M], fn: Callable[[M], Awaitable[Any]]) -> Handler:
    """The connection's handler of `method`: parse with `model`, call `fn`, translate errors."""

    async def handler(raw: Any) -> Any:
        params = parse(method, model, raw)
        with translated(method):
            return await fn(params)

    return handler
