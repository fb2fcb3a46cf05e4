"""`RpcError`: a JSON-RPC error answer, raised by the shared core and by either front end.

ACP's connection answers it as it is; the language server turns it into
pygls' `JsonRpcException` with the same code and message at its boundary.
"""

from __future__ import annotations

from typing import Any


class RpcError(Exception):
    """A JSON-RPC error: raised by handlers to answer one, and by a client call the peer
    answered with one."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def wire(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error
