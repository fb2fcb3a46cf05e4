"""What both front ends (`cairn.lsp`, `cairn.acp`) share: the protocol-neutral glue.

One JSON guard for message bodies (`json_guard`), one set of JSON-RPC codes
(`codes`) and error type (`faults`), one params validator (`params`), one map
from each `CairnError` kind to its code and message (`error_map`), one way to
start, warm and close an engine (`engine_start`), one settings fallback
(`settings_fallback`), one cancel path: running, awaiting and stopping turns (`turns`) and one
place for the sentences users read (`sentences`). `lsp/` and `acp/` translate
their protocol onto these and never import each other.
"""
