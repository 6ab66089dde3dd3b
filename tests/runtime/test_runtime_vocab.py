"""runtime/ speaks herdr.vocab: its errors are `HerdrError`s, its status words are vocab's."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from herdr import vocab
from herdr.runtime import agents as ra
from herdr.runtime import detection_loop as dl
from herdr.runtime import metadata as md
from herdr.runtime.agent_state import TerminalAgentState, report_agent
from herdr.runtime.model import ModelError, Session


def _model() -> None:
    Session().pane("w1:p1")


def _agents() -> None:
    ra.check_name("Bad Name")


def _report() -> None:
    report_agent(TerminalAgentState(), source="user:x", agent="  ", state="idle", now=0)


def _state() -> None:
    report_agent(TerminalAgentState(), source="user:x", agent="codex", state="asleep", now=0)


def _metadata() -> None:
    md.normalize_source("")


@pytest.mark.parametrize(
    ("raise_it", "kind", "code"),
    [
        (_model, ModelError, "pane_not_found"),
        (_agents, ra.AgentError, "invalid_agent_name"),
        (_report, md.ReportError, "invalid_agent"),
        (_state, md.ReportError, "invalid_params"),
        (_metadata, md.MetadataError, "invalid_metadata_source"),
    ],
    ids=["model", "agents", "report", "report-state", "metadata"],
)
def test_domain_errors_are_herdr_errors(
    raise_it: Callable[[], None], kind: type[vocab.HerdrError], code: str
) -> None:
    with pytest.raises(vocab.HerdrError) as err:
        raise_it()
    assert type(err.value) is kind
    assert err.value.code == code and type(err.value.code) is str
    assert err.value.message and str(err.value) == f"{code}: {err.value.message}"


def test_status_words_are_vocab_words() -> None:
    assert frozenset(vocab.STATUS_WORDS) == ra.ALL_STATUSES
    assert frozenset(vocab.STATUS_WORDS) == md.STATE_LABEL_KEYS
    assert ra.DEFAULT_UNTIL == {"idle", "done", "blocked"} <= ra.ALL_STATUSES
    loop_words = (dl.IDLE, dl.WORKING, dl.BLOCKED, dl.UNKNOWN)
    assert loop_words == vocab.REPORTABLE_STATES
    assert all(type(word) is str for word in loop_words)
