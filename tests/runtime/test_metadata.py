"""Metadata validation rules (herdr-spec §3.4, detection-spec §9.9), each at and past its bound."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.detect.agents import Agent
from herdr.runtime import metadata as md
from herdr.runtime.metadata import MetadataError, ReportError


def _code(fn: Any, /, **kwargs: Any) -> str | None:
    try:
        fn(**kwargs)
    except ReportError as err:
        return err.code
    return None


def pane(**kwargs: Any) -> str | None:
    kwargs.setdefault("source", "user:x")
    return _code(md.parse_pane_metadata_report, **kwargs)


# --------------------------------------------------------------------------- source


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ("a", None),
        ("s" * 80, None),
        ("s" * 81, "invalid_metadata_source"),
        ("", "invalid_metadata_source"),
        ("   ", "invalid_metadata_source"),
        ("  user:x.y_z-1  ", None),
        ("user/x", "invalid_metadata_source"),
        ("user x", "invalid_metadata_source"),
        ("usér", "invalid_metadata_source"),
    ],
)
def test_source(source: str, code: str | None) -> None:
    assert pane(source=source, title="t") == code


def test_source_is_trimmed() -> None:
    assert md.normalize_source("\u3000user:x\t") == "user:x"


def test_applies_to_source_follows_the_same_rule() -> None:
    assert pane(applies_to_source="herdr:pi", title="t") is None
    assert pane(applies_to_source="s" * 81, title="t") == "invalid_metadata_source"


# --------------------------------------------------------------------------- agent


def test_agent_is_normalised_and_blank_rejected() -> None:
    report = md.parse_pane_metadata_report(source="a", agent=" CLAUDE ", title="t")
    assert report.agent_label == "claude"
    report = md.parse_pane_metadata_report(source="a", agent=" My Bot ", title="t")
    assert report.agent_label == "My Bot"
    assert pane(agent=" ", title="t") == "invalid_agent"


# --------------------------------------------------------------------------- tokens


def _tokens(n: int) -> dict[str, str | None]:
    return {f"k{i}": "v" for i in range(n)}


@pytest.mark.parametrize(
    ("tokens", "code"),
    [
        (_tokens(16), None),
        (_tokens(17), "invalid_metadata_token"),
        ({"k" * 32: "v"}, None),
        ({"k" * 33: "v"}, "invalid_metadata_token"),
        ({"A-z_09": "v"}, None),
        ({"bad.name": "v"}, "invalid_metadata_token"),
        ({"bad name": "v"}, "invalid_metadata_token"),
        ({"": "v"}, "invalid_metadata_token"),
        ({"ké": "v"}, "invalid_metadata_token"),
        ({"k": None}, None),
    ],
)
def test_token_keys(tokens: dict[str, str | None], code: str | None) -> None:
    assert pane(tokens=tokens) == code


def test_empty_workspace_token_patch_is_an_error() -> None:
    code = _code(md.parse_workspace_metadata_report, source="a", tokens={})
    assert code == "invalid_metadata_token"


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        ("  review\nready  ", "reviewready"),
        (" \n ", None),
        ("", None),
        ("v" * 80, "v" * 80),
        ("v" * 81, "v" * 80),
        ("  " + "v" * 79 + "  x", "v" * 79),
        ("a\x00b\x7fc\x85d", "abcd"),
    ],
)
def test_token_values_are_sanitised(value: str, stored: str | None) -> None:
    assert md.normalize_tokens({"k": value}) == {"k": stored}


# --------------------------------------------------------------------------- ttl


@pytest.mark.parametrize(
    ("ttl", "code"),
    [
        (1, None),
        (86_400_000, None),
        (0, "invalid_metadata_ttl"),
        (86_400_001, "invalid_metadata_ttl"),
        (-5, "invalid_metadata_ttl"),
        (None, None),
    ],
)
def test_ttl(ttl: int | None, code: str | None) -> None:
    assert pane(title="t", ttl_ms=ttl) == code
    assert (
        _code(md.parse_workspace_metadata_report, source="a", tokens={"k": "v"}, ttl_ms=ttl) == code
    )


# --------------------------------------------------------------------------- text fields


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        ("Title", "Title"),
        ("t" * 80, "t" * 80),
        ("t" * 81, "t" * 80),
        ("  \t ", None),
        ("a\u0007b", "ab"),
        ("\u2003x\u2003", "x"),
    ],
)
def test_title_and_display_agent_are_sanitised(value: str, stored: str | None) -> None:
    report = md.parse_pane_metadata_report(
        source="a", title=value, display_agent=value, tokens={"keep": "request non-empty"}
    )
    assert report.title == stored and report.display_agent == stored


@pytest.mark.parametrize(
    ("labels", "code", "stored"),
    [
        ({"idle": "zzz"}, None, {"idle": "zzz"}),
        ({" Working ": "busy"}, None, {"working": "busy"}),
        (
            {"done": "✓", "unknown": "?", "blocked": "!"},
            None,
            {"done": "✓", "unknown": "?", "blocked": "!"},
        ),
        ({"busy": "x"}, "invalid_state_label", None),
        ({"idle": "   "}, None, {}),
        ({"idle": "l" * 81}, None, {"idle": "l" * 80}),
    ],
)
def test_state_labels(
    labels: dict[str, str], code: str | None, stored: dict[str, str] | None
) -> None:
    assert pane(state_labels=labels, clear_title=True) == code
    if stored is not None:
        report = md.parse_pane_metadata_report(source="a", state_labels=labels, clear_title=True)
        assert dict(report.state_labels) == stored


# --------------------------------------------------------------------------- request shape


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"title": "t", "clear_title": True}, "invalid_metadata_request"),
        ({"title": "  ", "clear_title": True}, "invalid_metadata_request"),
        ({"display_agent": "d", "clear_display_agent": True}, "invalid_metadata_request"),
        ({"state_labels": {"idle": "x"}, "clear_state_labels": True}, "invalid_metadata_request"),
        ({}, "invalid_metadata_request"),
        ({"title": "   "}, "invalid_metadata_request"),
        ({"tokens": {}}, "invalid_metadata_request"),
        ({"clear_title": True}, None),
        ({"title": "t", "clear_display_agent": True}, None),
    ],
)
def test_request_shape(kwargs: dict[str, Any], code: str | None) -> None:
    assert pane(**kwargs) == code


def test_presentation_requested() -> None:
    assert md.parse_pane_metadata_report(source="a", clear_state_labels=True).presentation_requested
    tokens_only = md.parse_pane_metadata_report(source="a", tokens={"k": "v"})
    assert not tokens_only.presentation_requested


def test_errors_come_in_validation_order() -> None:
    # agent before source before tokens before ttl.
    assert pane(agent=" ", source="!", tokens={"bad.": "v"}, ttl_ms=0) == "invalid_agent"
    assert pane(source="!", tokens={"bad.": "v"}, ttl_ms=0) == "invalid_metadata_source"
    assert pane(tokens={"bad.": "v"}, ttl_ms=0) == "invalid_metadata_token"
    assert pane(tokens={"k": "v"}, ttl_ms=0) == "invalid_metadata_ttl"


# --------------------------------------------------------------------------- tokens store


def test_token_patch_set_clear_and_ttl_only_for_patched_keys() -> None:
    tokens = md.MetadataTokens()
    assert tokens.patch({"short": "one"}, 1000, now=0)
    assert tokens.patch({"persistent": "two"}, None, now=0)
    assert not tokens.patch({"persistent": "two"}, None, now=5)
    assert tokens.next_expiry() == 1000
    assert not tokens.expire(999)
    assert tokens.expire(1000)
    assert tokens.values() == {"persistent": "two"}
    assert tokens.patch({"persistent": None}, None, now=1)
    assert tokens.values() == {}


def test_update_without_ttl_cancels_previous_expiry() -> None:
    tokens = md.MetadataTokens()
    tokens.patch({"k": "temporary"}, 10, now=0)
    tokens.patch({"k": "persistent"}, None, now=1)
    assert not tokens.expire(100)
    assert tokens.values() == {"k": "persistent"}


def test_sequence_sources_are_bounded() -> None:
    seqs: dict[str, int] = {}
    for i in range(md.MAX_SEQUENCE_SOURCES):
        assert md.accept_sequence(seqs, f"s{i}", 1)
    with pytest.raises(MetadataError) as err:
        md.accept_sequence(seqs, "one-too-many", 1)
    assert err.value.code == "metadata_sequence_source_limit"
    assert not md.accept_sequence(seqs, "s0", 1)
    assert md.accept_sequence(seqs, "s0", 2)
    assert md.accept_sequence(seqs, "anything", None)


def test_workspace_metadata_report() -> None:
    meta = md.WorkspaceMetadata()
    report = md.parse_workspace_metadata_report(source="ci", tokens={"build": "ok"}, seq=3)
    assert md.apply_workspace_metadata(meta, report, now=0)
    assert not md.apply_workspace_metadata(meta, report, now=1)  # stale seq: silently ok
    for i in range(31):
        extra = md.parse_workspace_metadata_report(source=f"w{i}", tokens={f"t{i}": "x"}, seq=1)
        md.apply_workspace_metadata(meta, extra, now=2)
    assert len(meta.tokens.values()) == 32
    over = md.parse_workspace_metadata_report(source="ci", tokens={"more": "x"}, seq=9)
    with pytest.raises(MetadataError) as err:
        md.apply_workspace_metadata(meta, over, now=3)
    assert err.value.code == "metadata_token_limit"
    new_source = md.parse_workspace_metadata_report(source="w99", tokens={"build": "x"}, seq=1)
    with pytest.raises(MetadataError) as err:
        md.apply_workspace_metadata(meta, new_source, now=4)
    assert err.value.code == "metadata_sequence_source_limit"
    assert meta.tokens.values()["build"] == "ok"


@pytest.mark.parametrize(
    ("source", "label", "applies_to", "agent"),
    [
        ("user:x", "claude", None, Agent.CLAUDE),
        ("herdr:codex", None, None, Agent.CODEX),
        ("user:x", None, "herdr:pi", Agent.PI),
        ("user:x", "my-bot", None, None),
        ("herdr:gemini", None, None, None),
    ],
)
def test_metadata_report_agent(
    source: str, label: str | None, applies_to: str | None, agent: Agent | None
) -> None:
    assert md.metadata_report_agent(source, label, applies_to) == agent
