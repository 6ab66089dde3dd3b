"""``agent.approval`` / ``agent.approve``: permission dialogs as data (our extension).

The dialog is read off the screen at the moment of the call, and ``agent.approve``
re-reads it right before typing, in the same event-loop step as the write: the keys go
out only while the dialog the client names (by fingerprint) is the one on screen.
Refusals type nothing:

* ``no_approval`` — no recognised dialog on screen and the call named none;
* ``approval_changed`` — the call's fingerprint is not the dialog on screen (another
  dialog, or none any more);
* ``approval_option_not_found`` — the dialog has no option with that id.
"""

from __future__ import annotations

from herdr.runtime import agent_state
from herdr.server.core import ApiError, Result
from herdr.server.dispatch import Handler
from herdr.server.methods_agents import resolve
from herdr.server.methods_io import _encode_keys, _terminal, _write
from herdr.server.wiring import Call
from herdr.vocab import ErrorCode


def agent_approval(call: Call) -> Result:
    loc, pa = resolve(call, call.params["target"])
    approval = call.server.agents.approval_of(pa, call.server.panes.terminal(loc))
    if approval is None:
        return {"type": "agent_approval", "approval": None}
    record = approval.record(loc.pane_id, agent_state.effective_label(pa.st))
    return {"type": "agent_approval", "approval": record}


def agent_approve(call: Call) -> Result:
    p = call.params
    loc, pa = resolve(call, p["target"])
    wanted = p.get("fingerprint")
    term = _terminal(call.server.panes, loc)
    approval = call.server.agents.approval_of(pa, term)
    if approval is None:
        if wanted is not None:
            raise ApiError(
                ErrorCode.APPROVAL_CHANGED, f"pane {loc.pane_id} no longer shows that dialog"
            )
        raise ApiError(ErrorCode.NO_APPROVAL, f"pane {loc.pane_id} shows no permission dialog")
    if wanted is not None and wanted != approval.fingerprint:
        raise ApiError(
            ErrorCode.APPROVAL_CHANGED,
            f"pane {loc.pane_id} shows another dialog now (fingerprint {approval.fingerprint})",
        )
    option = approval.option(p["option_id"])
    if option is None:
        ids = ", ".join(o.id for o in approval.options)
        raise ApiError(
            ErrorCode.APPROVAL_OPTION_NOT_FOUND,
            f"the dialog has no option {p['option_id']!r} (options: {ids})",
        )
    _write(term, _encode_keys(term, list(option.keys)), loc.pane_id)
    return {"type": "agent_approved", "sent": True, "option": option.as_dict()}


METHODS: dict[str, Handler] = {
    "agent.approval": agent_approval,
    "agent.approve": agent_approve,
}
