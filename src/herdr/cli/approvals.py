"""``herdr agent approval`` / ``herdr agent approve``: answer permission dialogs by data.

``approval`` prints the dialog an agent is blocked on (question, detail, numbered
options); ``approve`` sends one option's keys, refused with ``approval_changed`` when
``--fingerprint`` names a dialog that is no longer on screen.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    import argparse
    from typing import Any


def approval_text(target: str, approval: dict[str, Any] | None) -> str:
    """The human form: the question, its detail indented, then ``id. label`` lines."""
    if not isinstance(approval, dict):
        return f"{target}: no permission dialog\n"
    agent = approval.get("agent") or "agent"
    lines = [f"{approval.get('pane_id', target)} ({agent}): {approval.get('question', '')}"]
    detail = str(approval.get("detail") or "")
    lines += [f"    {line}" for line in detail.splitlines()]
    for option in approval.get("options") or []:
        keys = " ".join(option.get("keys") or [])
        lines.append(f"  {option.get('id')}. {option.get('label')}  [{keys}]")
    lines.append(f"rule {approval.get('rule')} · fingerprint {approval.get('fingerprint')}")
    return "\n".join(lines) + "\n"


def run_approval(args: argparse.Namespace) -> int:
    from herdr.cli.transport import print_json, request_or_exit

    envelope = request_or_exit(args, "agent.approval", {"target": args.target})
    if args.json:
        print_json(envelope)
        return 0
    result = envelope.get("result")
    approval = result.get("approval") if isinstance(result, dict) else None
    sys.stdout.write(approval_text(args.target, approval))
    return 0


def run_approve(args: argparse.Namespace) -> int:
    from herdr.cli.transport import call_and_print

    params: dict[str, Any] = {"target": args.target, "option_id": args.option}
    if args.fingerprint is not None:
        params["fingerprint"] = args.fingerprint
    return call_and_print(args, "agent.approve", params)
