"""Model runtime: litellm calls (imported lazily), streaming, retries, the scripted model.

`from cairn.llm import ModelRuntime, ModelReply, ToolCall`. Importing this
package does not import litellm; the first call of a real provider does (or
`ModelRuntime.prefetch`, in the background). The scripted model never does.
Provider settings are in `provider`, error classification in `failures`,
the retry policy in `retry`, the words of failures in `explain` and the
"no model configured" text in `guide`.
"""

from cairn.llm.reply import ModelReply, ToolCall
from cairn.llm.retry import RetryNotice
from cairn.llm.runtime import ModelRuntime, Timing

__all__ = ["ModelReply", "ModelRuntime", "RetryNotice", "Timing", "ToolCall"]


def reset_scripts() -> None:
    """Rewind the process's cursor: every `scripted/<path>` script starts again (for tests).

    Sessions keep their own cursors in their traces (see `cairn.llm.script`)."""
    from cairn.llm.script import reset_process_cursor

    reset_process_cursor()
