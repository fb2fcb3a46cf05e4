"""Each `CairnError` kind → one JSON-RPC code and one message, the same in both protocols.

| error (first match)      | code                        | message                        |
|--------------------------|-----------------------------|--------------------------------|
| `InvalidRequestError`    | -32602 Invalid params       | `method: <the error>`          |
| `NoModelError`           | -32803 Request failed       | `method: <the setup guide>`    |
| any other `CairnError`   | -32803 Request failed       | `method: <the error>`          |

`InvalidRequestError` covers an unknown session (`unknown session: 'id'`), a
bad goal id and a refused path. An unknown session is not ACP's Resource not
found (-32002): in LSP that code is ServerNotInitialized, and LSP clients
(pygls' among them) read it so. The setup guide is
`cairn.llm.guide.no_model_message` for an editor. Any other exception is not
translated: the front end logs it with its traceback and answers Internal
error (-32603).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from cairn.errors import CairnError, InvalidRequestError, NoModelError
from cairn.frontends.codes import INVALID_PARAMS, REQUEST_FAILED
from cairn.frontends.faults import RpcError

# (kind, code), most specific first; a CairnError matching none is REQUEST_FAILED.
ERROR_CODES: tuple[tuple[type[CairnError], int], ...] = (
    (InvalidRequestError, INVALID_PARAMS),
    (NoModelError, REQUEST_FAILED),
)


def error_code(error: CairnError) -> int:
    """The JSON-RPC code of one `CairnError` (the table above)."""
    for kind, code in ERROR_CODES:
        if isinstance(error, kind):
            return code
    return REQUEST_FAILED


def error_text(error: CairnError) -> str:
    """What the user reads for one `CairnError` (no model: how to configure one)."""
    if isinstance(error, NoModelError):
        from cairn.llm.guide import no_model_message

        return no_model_message(os.environ, "editor")
    return str(error)


def rpc_error(method: str, error: CairnError) -> RpcError:
    """The JSON-RPC error answering `method` with `error`."""
    return RpcError(error_code(error), f"{method}: {error_text(error)}")


@contextmanager
def translated(method: str) -> Iterator[None]:
    """`CairnError`s raised inside → the `RpcError` of the table, naming `method`."""
    try:
        yield
    except CairnError as error:
        raise rpc_error(method, error) from None
