"""Two user kinds (or a user kind and a built-in) claiming one name: a diagnostic that
names both, and a deterministic winner (a kind's own label, then file name order)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr.detect.agents import parse_agent_label
from herdr.detect.user_registry import UserKindRegistry


def _kind(label: str, process_names: list[str], aliases: list[str]) -> str:
    return f'label = "{label}"\nprocess_names = {process_names!r}\naliases = {list(aliases)!r}\n'


def _manifest(label: str) -> str:
    return f'id = "{label}"\n[[rules]]\nid = "p"\nstate = "idle"\ncontains = ["{label}>"]\n'


@pytest.fixture
def agents(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "agents"
    directory.mkdir()
    yield directory
    UserKindRegistry(str(tmp_path / "none")).load()


PN, AL = "process_names", "aliases"
CASES = [
    # (id, {label: (process_names, aliases)}, name asked, winner, loser file, key)
    ("process-name", {"alpha": (["zz"], []), "beta": (["zz"], [])}, "zz", "alpha", "beta", PN),
    ("alias", {"alpha": (["a"], ["cli"]), "beta": (["b"], ["cli"])}, "cli", "alpha", "beta", AL),
    ("label-first", {"alpha": (["a"], ["beta"]), "beta": (["b"], [])}, "beta", "beta", "alpha", AL),
    ("case-folded", {"alpha": (["ZZ"], []), "beta": (["zz.exe"], [])}, "zz", "alpha", "beta", PN),
]


@pytest.mark.parametrize(
    ("kinds", "expected"), [(c[1], c[2:]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_shared_name_is_flagged_naming_both_files(
    agents: Path,
    kinds: dict[str, tuple[list[str], list[str]]],
    expected: tuple[str, str, str, str],
) -> None:
    asked, winner, loser, key = expected
    for label, (names, aliases) in kinds.items():
        (agents / f"{label}.toml").write_text(_kind(label, names, aliases), "utf-8")
        (agents / f"{label}.manifest.toml").write_text(_manifest(label), "utf-8")
    registry = UserKindRegistry(str(agents))
    registry.load()
    assert registry.errors == []  # both kinds load
    assert sorted(registry.kinds) == sorted(kinds)
    assert len(registry.conflicts) == 1, registry.conflicts
    diagnostic = registry.conflicts[0]
    assert diagnostic.startswith(f"{agents / (loser + '.toml')}: {key} entry ")
    assert str(agents / f"{winner}.toml") in diagnostic
    assert registry.diagnostics == registry.conflicts
    found = parse_agent_label(asked)
    assert found is not None and found.label == winner
    other = parse_agent_label(loser)
    assert other is not None and other.label == loser  # the loser keeps its own label


def test_a_builtin_name_refuses_the_kind_and_names_the_builtin(agents: Path) -> None:
    (agents / "zork.toml").write_text(_kind("zork", ["zork"], ["codex"]), "utf-8")
    (agents / "zork.manifest.toml").write_text(_manifest("zork"), "utf-8")
    registry = UserKindRegistry(str(agents))
    registry.load()
    assert registry.kinds == {}
    assert registry.errors == [
        f"{agents / 'zork.toml'}:3: 'codex' already names a built-in agent "
        "(bundled with herdr), which keeps it; the kind is not loaded"
    ]
    found = parse_agent_label("codex")
    assert found is not None and found.is_builtin
