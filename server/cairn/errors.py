"""Exception types shared by every layer.

Every error a user can cause is a `CairnError` whose message names the
problem in one line; the CLI prints it on stderr and the language server
answers it as a JSON-RPC error, and neither shows a traceback for it.
"""


class CairnError(Exception):
    """Base class of all errors Cairn reports to a user."""


class InvalidRequestError(CairnError):
    """A request or argument is malformed or names something that does not exist."""


class UnknownSessionError(InvalidRequestError):
    """A session id does not name a session of this workspace."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"unknown session: {session_id!r}")
        self.session_id = session_id


class GoalError(InvalidRequestError):
    """A goal verb cannot be applied (no focused goal, unknown id, bad text)."""


class SettingsError(CairnError):
    """A settings value is invalid; the message names the key."""


class TraceLockedError(CairnError):
    """Another process holds the write lock on a trace."""


class BudgetError(CairnError):
    """The token budget cannot hold even the blocks that must never be dropped."""


class PathRefusedError(InvalidRequestError):
    """A path is outside the workspace, secret, binary, ignored or too large."""


class ModelError(CairnError):
    """A model call failed (after the retries that could help), or no call was possible.

    `kind` names the failure (`auth`, `missing_key`, `rate_limit`, …, see
    `cairn.llm.failures`), `requests` how many HTTP requests were made and
    `elapsed_s` over how long.
    """

    def __init__(
        self, message: str, *, kind: str = "error", requests: int = 0, elapsed_s: float = 0.0
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.requests = requests
        self.elapsed_s = elapsed_s


class NoModelError(ModelError):
    """No model is configured: the message says how to set one."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="no_model")


class ContextLengthError(ModelError):
    """The provider refused the request as longer than its context window.

    `limit` is the window the provider reported (tokens), `used` what it
    counted for the request, each None when its message did not say.
    """

    def __init__(
        self,
        message: str,
        *,
        limit: int | None,
        used: int | None,
        requests: int,
        elapsed_s: float,
    ) -> None:
        super().__init__(message, kind="context_length", requests=requests, elapsed_s=elapsed_s)
        self.limit = limit
        self.used = used


class ServeError(CairnError):
    """`cairn serve` cannot listen: an invalid port, a port in use, an unsafe socket path."""
