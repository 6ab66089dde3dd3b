"""``herdr agent explain`` output (detection-spec §6): the JSON object and CLI text.

Explain is how users debug "why is my agent shown as idle?", and tools parse
it, so field names and value shapes follow the original exactly. Keys are
emitted in alphabetical order by the caller (``json.dumps(sort_keys=True)``),
matching serde_json without ``preserve_order``.
"""

from __future__ import annotations

from herdr.detect.manifest.decision import decision_lines
from herdr.detect.manifest.model import (
    STATE_UNKNOWN,
    UNKNOWN_AGENT_FALLBACK,
    Evaluation,
    Manifest,
    RuleResult,
)
from herdr.detect.manifest.rustfmt import debug_json_str_array, debug_str

PREVIEW_CHARS = 240


def region_preview(text: str) -> str:
    """The first 240 characters, plus ``...`` when the text was longer."""
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "..."


def _evaluated_rule(result: RuleResult) -> dict[str, object]:
    rule = result.rule
    text = result.region_text
    return {
        "id": rule.id,
        "priority": rule.priority,
        "region": rule.region,
        "state": rule.effective_state,
        "matched": result.matched,
        "evidence": {
            "contains": list(rule.contains),
            "regex": list(rule.regex),
            "line_regex": list(rule.line_regex),
            "all_count": rule.all_count,
            "any_count": rule.any_count,
            "not_count": rule.not_count,
            "region_bytes": len(text.encode("utf-8", "surrogatepass")),
            "region_preview": region_preview(text),
        },
    }


def explain_dict(
    *,
    agent: str | None,
    evaluation: Evaluation | None,
    manifest: Manifest | None,
    manifest_source: str | None,
    cached_remote_version: str | None,
    local_override_shadowing_remote: bool,
    remote_update_status: str | None,
    remote_update_error: str | None,
    warning: str | None,
    unknown_agent: bool = False,
) -> dict[str, object]:
    """Build the explain object; ``unknown_agent`` is the "label did not parse" variant."""
    if unknown_agent:
        # The original reports nothing but the raw label for an unparseable agent.
        evaluation = None
        manifest = None
        manifest_source = cached_remote_version = None
        remote_update_status = remote_update_error = warning = None
        local_override_shadowing_remote = False
    detection = evaluation.detection if evaluation is not None else None
    winner = evaluation.winner if evaluation is not None else None
    if unknown_agent:
        fallback_reason: str | None = UNKNOWN_AGENT_FALLBACK
    else:
        fallback_reason = evaluation.fallback_reason if evaluation is not None else None
    matched_rule = None
    if winner is not None:
        matched_rule = {
            "id": winner.id,
            "priority": winner.priority,
            "region": winner.region,
            "state": winner.effective_state,
        }
    skip = detection.skip_state_update if detection is not None else False
    return {
        "agent": agent,
        "state": detection.state if detection is not None else STATE_UNKNOWN,
        "manifest_source": manifest_source,
        "manifest_version": manifest.version if manifest is not None else None,
        "cached_remote_version": cached_remote_version,
        "local_override_shadowing_remote": local_override_shadowing_remote,
        "remote_update_status": remote_update_status,
        "remote_update_error": remote_update_error,
        "matched_rule": matched_rule,
        "visible_idle": detection.visible_idle if detection is not None else False,
        "visible_blocker": detection.visible_blocker if detection is not None else False,
        "visible_working": detection.visible_working if detection is not None else False,
        "screen_detection_skipped": False,
        "skip_state_update": skip,
        "skipped_update_reason": f"matched_rule:{winner.id}" if skip and winner else None,
        "fallback_reason": fallback_reason,
        "warning": warning,
        "evaluated_rules": (
            [_evaluated_rule(r) for r in evaluation.rule_results] if evaluation is not None else []
        ),
    }


def _str(value: object, default: str) -> str:
    return value if isinstance(value, str) else default


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _bool(value: object) -> str:
    return "true" if value is True else "false"


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _rules(d: dict[str, object]) -> list[dict[str, object]]:
    rules = d.get("evaluated_rules")
    if not isinstance(rules, list):
        return []
    return [r for r in rules if isinstance(r, dict)]


def _evidence(rule: dict[str, object]) -> dict[str, object]:
    evidence = rule.get("evidence")
    return evidence if isinstance(evidence, dict) else {}


def _winner_preview(d: dict[str, object], rule_id: str) -> str | None:
    for rule in _rules(d):
        if rule.get("id") == rule_id:
            preview = _evidence(rule).get("region_preview")
            return preview if isinstance(preview, str) and preview else None
    return None


def explain_text(d: dict[str, object], *, verbose: bool) -> str:
    """CLI text mode of ``herdr agent explain`` (``--verbose`` adds flags and every rule)."""
    lines = [
        f"agent: {_str(d.get('agent'), 'unknown')}",
        f"state: {_str(d.get('state'), 'unknown')}",
    ]
    lines.append(
        f"manifest: {_str(d.get('manifest_source'), 'none')} "
        f"{_str(d.get('manifest_version'), 'unknown')}"
    )
    lines.extend(decision_lines(d))
    matched = d.get("matched_rule")
    if isinstance(matched, dict):
        rule_id = _str(matched.get("id"), "-")
        lines.append(
            f"rule: {rule_id} (region={_str(matched.get('region'), '-')} "
            f"priority={_int(matched.get('priority'))})"
        )
        preview = _winner_preview(d, rule_id)
        if preview is not None:
            lines.append(f"evidence: {debug_str(preview)}")
    else:
        lines.append("rule: none")
    for key in (
        "fallback_reason",
        "screen_detection_skip_reason",
        "skipped_update_reason",
        "warning",
    ):
        value = d.get(key)
        if isinstance(value, str):
            lines.append(f"{key}: {value}")
    if verbose:
        lines.append(
            f"visible: idle={_bool(d.get('visible_idle'))} "
            f"blocker={_bool(d.get('visible_blocker'))} "
            f"working={_bool(d.get('visible_working'))}"
        )
        lines.append(f"cached_remote_version: {_str(d.get('cached_remote_version'), 'none')}")
        lines.append(
            f"local_override_shadowing_remote: {_bool(d.get('local_override_shadowing_remote'))}"
        )
        for key in ("remote_update_status", "remote_update_error"):
            value = d.get(key)
            if isinstance(value, str):
                lines.append(f"{key}: {value}")
        rules = _rules(d)
        if rules:
            lines.append("evaluated_rules:")
        for rule in rules:
            evidence = _evidence(rule)
            mark = "✓" if rule.get("matched") is True else "✗"
            lines.append(
                f"  {mark} {_str(rule.get('id'), '-')} priority={_int(rule.get('priority'))} "
                f"region={_str(rule.get('region'), '-')} "
                f"state={_str(rule.get('state'), 'unknown')}"
            )
            contains, regex, line_regex = (
                debug_json_str_array(_strings(evidence.get(key)))
                for key in ("contains", "regex", "line_regex")
            )
            lines.append(
                f"    matchers: contains={contains} regex={regex} line_regex={line_regex} "
                f"all={_int(evidence.get('all_count'))} any={_int(evidence.get('any_count'))} "
                f"not={_int(evidence.get('not_count'))}"
            )
            lines.append(
                f"    region: bytes={_int(evidence.get('region_bytes'))} "
                f"preview={debug_str(_str(evidence.get('region_preview'), ''))}"
            )
    return "\n".join(lines) + "\n"
