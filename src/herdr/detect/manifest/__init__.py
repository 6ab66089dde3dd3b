"""The pure manifest detection engine: parse, validate and evaluate agent rules.

Public API used by the detection loop, ``agent.explain`` and manifest sources.
Nothing here does I/O or holds asyncio objects; manifests are compiled once at
parse time and evaluation is bounded in time (see :mod:`.engine`, :mod:`.gates`).
"""

from __future__ import annotations

from herdr.detect.manifest.engine import (
    MAX_OSC_CHARS,
    MAX_SCREEN_CHARS,
    MAX_SCREEN_LINES,
    detect,
    evaluate,
)
from herdr.detect.manifest.errors import ManifestCompileError, ManifestError
from herdr.detect.manifest.explain import explain_dict, explain_text
from herdr.detect.manifest.model import (
    DEFAULT_KNOWN_AGENT_IDLE_FALLBACK,
    UNKNOWN_AGENT_FALLBACK,
    AgentDetection,
    DetectionInput,
    Evaluation,
    Manifest,
    Rule,
    RuleResult,
)
from herdr.detect.manifest.parse import parse_manifest
from herdr.detect.manifest.version import ENGINE_VERSION, ManifestVersion, parse_version

__all__ = [
    "DEFAULT_KNOWN_AGENT_IDLE_FALLBACK",
    "ENGINE_VERSION",
    "MAX_OSC_CHARS",
    "MAX_SCREEN_CHARS",
    "MAX_SCREEN_LINES",
    "UNKNOWN_AGENT_FALLBACK",
    "AgentDetection",
    "DetectionInput",
    "Evaluation",
    "Manifest",
    "ManifestCompileError",
    "ManifestError",
    "ManifestVersion",
    "Rule",
    "RuleResult",
    "detect",
    "evaluate",
    "explain_dict",
    "explain_text",
    "parse_manifest",
    "parse_version",
]
