"""First-use trust in `cairn acp`: the user, asked through the client, decides on a folder.

A root whose `cairn.toml` names exec-relevant keys the user's record does not
cover (`cairn.files.trust`: the settings' `ignored_keys`) is asked about
once per process, on its first session (after `session/new`, `resume` or
`fork` answers) or its first prompt (a loaded session), whichever comes
first; a prompt waits for the answer. The question (`trust_question`, the
same sentence `cairn run` asks) goes through `session/request_permission`
on a tool call of its own (kind `other`, shown first as a `tool_call`):

- `allow_always` — recorded with `grant`, the record `cairn trust DIR` writes;
- `allow_once` — trusted until this process ends (`Engines.trusted_here`);
- `reject_once` — kept restricted; the next process asks again.

A grant applies at once (`Engines.retrust`: the root's settings read again,
its engine uses them from the next call, so its MCP servers start when a
turn needs them). A client that cannot be asked (an error answer, a
cancelled or unreadable outcome) leaves the folder restricted and, when it
takes notices, gets one naming `cairn trust DIR`. The decision comes only
from the client's answer: nothing the workspace, a tool or the model says
is consulted.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from cairn.acp.notices import notice
from cairn.acp.schema import selected_option
from cairn.acp.updates import text_content
from cairn.files.trust import grant, trust_question, untrusted_notice
from cairn.frontends.faults import RpcError

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from cairn.acp.server import AcpServer, AcpSession

logger = logging.getLogger(__name__)

Decision = Literal["always", "once", "reject", "unanswered"]
TRUST_ALWAYS = "trust-always"
TRUST_ONCE = "trust-once"
KEEP_RESTRICTED = "keep-restricted"
CALL_PREFIX = "cairn-trust-"
DECISIONS: dict[str, Decision] = {
    TRUST_ALWAYS: "always",
    TRUST_ONCE: "once",
    KEEP_RESTRICTED: "reject",
}


def trust_options(folder: Path) -> list[dict[str, str]]:
    """Always (recorded), once (this process), keep restricted."""
    return [
        {"optionId": TRUST_ALWAYS, "name": f"Always trust {folder}", "kind": "allow_always"},
        {"optionId": TRUST_ONCE, "name": "Trust it until Cairn stops", "kind": "allow_once"},
        {"optionId": KEEP_RESTRICTED, "name": "Keep it restricted", "kind": "reject_once"},
    ]


def decision_of(answer: Any) -> Decision:
    """The user's decision from a `session/request_permission` answer."""
    return DECISIONS.get(selected_option(answer) or "", "unanswered")


def outcome_sentence(decision: Decision, folder: Path) -> str:
    if decision == "always":
        return f"trusted {folder} (recorded; `cairn trust --revoke {folder}` forgets it)"
    if decision == "once":
        return f"trusted {folder} until Cairn stops"
    return f"{folder} stays restricted"


class TrustAsker:
    """The one question per root and process (see the module docstring)."""

    def __init__(self, server: AcpServer) -> None:
        self._server = server
        self._asks: dict[Path, asyncio.Task[None]] = {}
        self._ids = itertools.count(1)

    def settle(self, session: AcpSession) -> Awaitable[None]:
        """Done once the session's root is decided (asked now on its first use)."""
        task = self._asks.get(session.root)
        if task is None:
            task = asyncio.ensure_future(self._settle(session))
            self._asks[session.root] = task
        return asyncio.shield(task)

    async def _settle(self, session: AcpSession) -> None:
        try:
            ignored = session.engine.settings.ignored_keys
            if ignored:
                await self._ask(session, list(ignored))
        except Exception:
            logger.exception("could not ask about trusting %s", session.root)

    async def _ask(self, session: AcpSession, ignored: list[str]) -> None:
        root, server = session.root, self._server
        call_id = f"{CALL_PREFIX}{next(self._ids)}"
        question = trust_question(root, ignored)
        call = {"toolCallId": call_id, "title": question, "kind": "other", "status": "pending"}
        raw = {"folder": str(root), "keys": ignored}
        server.send(session.id, {"sessionUpdate": "tool_call", **call, "rawInput": raw})
        params = {"sessionId": session.id, "toolCall": call, "options": trust_options(root)}
        decision = await self._request(params)
        granted = decision in ("always", "once")
        if decision == "always":
            try:
                grant(root)
            except OSError as error:
                logger.warning("could not record the trust of %s: %s", root, error)
                decision = "once"  # the user said yes: trust it for this process at least
        if decision == "once":
            server.engines.trusted_here.add(root)
        if granted:
            server.engines.retrust(root)
        logger.info("trust of %s: %s", root, decision)
        end = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "status": "completed" if granted else "failed",
            "content": [text_content(outcome_sentence(decision, root))],
        }
        server.send(session.id, end)
        if decision == "unanswered":
            server.tell(session.id, notice("warning", untrusted_notice(ignored, root)))

    async def _request(self, params: dict[str, Any]) -> Decision:
        conn = self._server.conn
        if conn is None:
            return "unanswered"
        try:
            return decision_of(await conn.request("session/request_permission", params))
        except RpcError as error:
            logger.info("the client could not be asked about trust: %s", error.message)
            return "unanswered"
