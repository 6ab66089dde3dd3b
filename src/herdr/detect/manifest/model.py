"""Immutable values of the detection engine: compiled manifests, inputs, results.

Compiled manifests are shared by every pane's detection loop (and swapped
wholesale on reload), so they are frozen; evaluation only reads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from msgspec import Struct

from herdr.detect.manifest.gates import Gate
from herdr.detect.manifest.regions import Region
from herdr.detect.manifest.version import ManifestVersion, parse_version

if TYPE_CHECKING:
    from herdr.detect.manifest.approval_spec import ApprovalSpec

STATE_IDLE = "idle"
STATE_WORKING = "working"
STATE_BLOCKED = "blocked"
STATE_UNKNOWN = "unknown"

DEFAULT_KNOWN_AGENT_IDLE_FALLBACK = "default_known_agent_idle_fallback"
UNKNOWN_AGENT_FALLBACK = "unknown_agent"


class Rule(Struct, frozen=True, eq=False):
    """One validated rule: the fields as written plus the compiled root gate.

    ``contains``/``regex``/``line_regex`` and the ``*_count`` fields are the
    top-level matchers as written (explain's evidence); ``gate`` is what runs.
    """

    id: str
    state: str | None
    priority: int
    region: str
    region_spec: Region
    visible_idle: bool
    visible_blocker: bool
    visible_working: bool
    skip_state_update: bool
    contains: tuple[str, ...]
    regex: tuple[str, ...]
    line_regex: tuple[str, ...]
    all_count: int
    any_count: int
    not_count: int
    gate: Gate
    approval: ApprovalSpec | None = None  # our extension: how to read its dialog

    @property
    def effective_state(self) -> str:
        """The state a match yields: an absent ``state`` means unknown."""
        return self.state if self.state is not None else STATE_UNKNOWN


class Manifest(Struct, frozen=True, eq=False):
    """A parsed, validated and compiled manifest (bundled, remote or override)."""

    id: str
    version: str | None
    min_engine_version: int | None
    aliases: tuple[str, ...]
    rules: tuple[Rule, ...]

    @property
    def parsed_version(self) -> ManifestVersion | None:
        """``version`` as a comparable value (it was validated at parse time)."""
        return None if self.version is None else parse_version(self.version)


class DetectionInput(Struct, frozen=True):
    """What detection sees: the bottom-of-buffer text and the two OSC strings."""

    screen: str
    osc_title: str = ""
    osc_progress: str = ""


class AgentDetection(Struct, frozen=True):
    """One evaluation's verdict (detection-spec vocabulary)."""

    state: str
    skip_state_update: bool = False
    visible_idle: bool = False
    visible_blocker: bool = False
    visible_working: bool = False


class RuleResult(NamedTuple):
    """How one rule fared: whether it matched and the region text it saw.

    A named tuple: one is built per rule per evaluation, and that is ~2x cheaper
    than a frozen dataclass.
    """

    rule: Rule
    matched: bool
    region_text: str


class Evaluation(Struct, frozen=True, eq=False):
    """The detection plus everything explain needs: winner, fallback, per-rule results."""

    detection: AgentDetection
    winner: Rule | None
    fallback_reason: str | None
    rule_results: tuple[RuleResult, ...]


UNKNOWN_DETECTION = AgentDetection(STATE_UNKNOWN)
IDLE_FALLBACK_DETECTION = AgentDetection(STATE_IDLE)
