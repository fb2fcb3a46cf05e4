"""The JSON-RPC error codes Cairn answers with, in both protocols (one definition each).

JSON-RPC 2.0's own codes and LSP's ServerNotInitialized, RequestCancelled and
RequestFailed (ACP uses LSP's cancel code too). Which code a `CairnError` gets is
`error_map.py`'s table.
"""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# LSP: a request before `initialize` (so never a code for anything else).
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800
# LSP's RequestFailed: well-formed, but it could not be done.
REQUEST_FAILED = -32803
