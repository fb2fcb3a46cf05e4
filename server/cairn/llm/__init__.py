"""Model runtime: litellm calls (imported lazily), streaming, retries, the scripted model.

`from cairn.llm import ModelRuntime, ModelReply, ToolCall`. Importing this
package does not import litellm; the first `ModelRuntime.complete` does.
Provider settings are in `provider`, error classification in `failures`,
the retry policy in `retry`, the words of failures in `explain` and the
"no model configured" text in `guide`.
"""

from cairn.llm.reply import ModelReply, ToolCall
from cairn.llm.retry import RetryNotice
from cairn.llm.runtime import ModelRuntime, Timing

__all__ = ["ModelReply", "ModelRuntime", "RetryNotice", "Timing", "ToolCall"]


def reset_scripts() -> None:
    """Rewind every `scripted/<path>` script to its first line (for tests)."""
    from cairn.llm.lazy import is_loaded

    if is_loaded():
        from cairn.llm.scripted import reset_scripts as reset

        reset()
