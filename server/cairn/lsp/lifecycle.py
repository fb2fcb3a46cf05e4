"""The server's lifecycle rules (LSP 3.17 "Lifecycle Messages"), as one pure function.

- Before `initialize`: a request is answered ServerNotInitialized (-32002)
  and a notification is dropped, except `exit`; nothing else happens (no
  engine is started, no state is changed), so `initialize` can still follow.
- `initialize` is accepted once; a second one is InvalidRequest (-32600).
- After `shutdown`: a request is InvalidRequest and a notification is dropped,
  except `exit`.
Responses from the client are never refused.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from cairn.frontends.codes import INVALID_REQUEST, SERVER_NOT_INITIALIZED

INITIALIZE = "initialize"
SHUTDOWN = "shutdown"
EXIT = "exit"


class Phase(enum.Enum):
    WAITING = "waiting for initialize"
    RUNNING = "running"
    SHUT_DOWN = "shut down"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What to do with a message: handle it (`refusal` None), answer an error, or drop it."""

    phase: Phase  # the phase once the message is accepted
    code: int | None = None
    refusal: str | None = None

    @property
    def accepted(self) -> bool:
        return self.refusal is None


def judge(phase: Phase, method: str, is_request: bool) -> Verdict:
    """The verdict on a request or notification `method` arriving in `phase`."""
    if method == EXIT and not is_request:
        return Verdict(phase)
    if phase is Phase.WAITING:
        if method == INITIALIZE and is_request:
            return Verdict(Phase.RUNNING)
        return Verdict(
            phase,
            SERVER_NOT_INITIALIZED,
            f"{method}: the server is not initialized yet: send initialize first",
        )
    if phase is Phase.SHUT_DOWN:
        return Verdict(
            phase,
            INVALID_REQUEST,
            f"{method}: the server is shutting down (shutdown was received): only exit is accepted",
        )
    if method == INITIALIZE:
        return Verdict(phase, INVALID_REQUEST, "initialize: the server is already initialized")
    if method == SHUTDOWN and is_request:
        return Verdict(Phase.SHUT_DOWN)
    return Verdict(phase)
