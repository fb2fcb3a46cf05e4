"""Raw JSON-RPC params → the method's params model, or Invalid params naming the problem.

Absent params are `{}`; anything but an object, or an object that does not
validate, is Invalid params (-32602) starting with the method and naming each
field as sent and its problem (`cairn.models.validation`).
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from cairn.frontends.codes import INVALID_PARAMS
from cairn.frontends.faults import RpcError
from cairn.models.validation import describe_validation_error

M = TypeVar("M", bound=BaseModel)


def parse_params(method: str, model: type[M], raw: object) -> M:
    """Validate raw params (None means `{}`); `RpcError` Invalid params naming the problem."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise RpcError(
            INVALID_PARAMS, f"{method}: params must be an object, got {type(raw).__name__}"
        )
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise RpcError(INVALID_PARAMS, f"{method}: {describe_validation_error(error)}") from None
