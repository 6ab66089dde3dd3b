"""Manifest layers: bundled → cached remote → local override, with every fallback (§7.2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr.detect.agents import SCREEN_MANIFEST_AGENTS, Agent
from herdr.detect.manifest import DetectionInput, evaluate, parse_version, sources
from herdr.detect.manifest.sources import (
    SOURCE_BUNDLED,
    SOURCE_OVERRIDE,
    SOURCE_REMOTE,
    LoadedManifest,
    ManifestCache,
    ManifestDirs,
    load_agent_manifest,
    load_bundled,
    read_update_status,
)


def _manifest(
    *,
    id_: str = "claude",
    version: str | None = "2099.1.1",
    engine: int | None = 3,
    rule: str = "probe_rule",
    aliases: str = "",
) -> str:
    head = [f'id = "{id_}"']
    if version is not None:
        head.append(f'version = "{version}"')
    if engine is not None:
        head.append(f"min_engine_version = {engine}")
    if aliases:
        head.append(f"aliases = [{aliases}]")
    return "\n".join(
        [*head, "", "[[rules]]", f'id = "{rule}"', 'state = "blocked"', 'contains = ["xyzzy"]', ""]
    )


@pytest.fixture
def dirs(tmp_path: Path) -> ManifestDirs:
    d = ManifestDirs(
        override_dir=tmp_path / "config" / "agent-detection",
        remote_dir=tmp_path / "state" / "agent-detection" / "remote",
        status_file=tmp_path / "state" / "agent-detection" / "status.toml",
    )
    d.override_dir.mkdir(parents=True)
    d.remote_dir.mkdir(parents=True)
    return d


def _write(directory: Path, text: str, label: str = "claude") -> Path:
    path = directory / f"{label}.toml"
    path.write_text(text, "utf-8")
    return path


def _rule_ids(loaded_rules: object) -> list[str]:
    return [r.id for r in loaded_rules]  # type: ignore[attr-defined]


def test_every_screen_agent_has_a_valid_bundled_manifest() -> None:
    for agent in SCREEN_MANIFEST_AGENTS:
        manifest = load_bundled(agent)
        assert manifest.rules, agent
        assert manifest.version is not None


def test_no_files_means_bundled(dirs: ManifestDirs) -> None:
    loaded = load_agent_manifest(Agent.CLAUDE, dirs)
    assert loaded.source_kind == SOURCE_BUNDLED
    assert loaded.source_display == "bundled"
    assert loaded.warning is None
    assert loaded.cached_remote_version is None
    assert loaded.local_override_shadowing_remote is False


@pytest.mark.parametrize(
    ("text", "kind", "warning_part", "cached"),
    [
        pytest.param(_manifest(), SOURCE_REMOTE, None, "2099.1.1", id="newer-remote-used"),
        pytest.param(
            _manifest(version="2026.08.21.1.2"),
            SOURCE_REMOTE,
            None,
            "2026.08.21.1.2",
            id="equal-used",
        ),
        # herdr publishes 4-segment versions; ours add a 5th (docs/manifest-versions.md),
        # so herdr's manifest of the same base is older than ours and never equal.
        pytest.param(
            _manifest(version="2026.08.21.1"),
            SOURCE_BUNDLED,
            "because cached version 2026.08.21.1 is older than bundled 2026.08.21.1.2",
            "2026.08.21.1",
            id="herdr-same-base-ignored",
        ),
        pytest.param(
            _manifest(version="2026.08.22.1"),
            SOURCE_REMOTE,
            None,
            "2026.08.22.1",
            id="herdr-newer-release-used",
        ),
        pytest.param(
            _manifest(version="2026.1.1"),
            SOURCE_BUNDLED,
            "because cached version 2026.1.1 is older than bundled",
            "2026.1.1",
            id="older-ignored",
        ),
        pytest.param(
            "id = [", SOURCE_BUNDLED, "because it could not be loaded", None, id="bad-toml"
        ),
        pytest.param(
            _manifest(version=None),
            SOURCE_BUNDLED,
            "could not be loaded",
            None,
            id="missing-version",
        ),
        pytest.param(
            _manifest(engine=None),
            SOURCE_BUNDLED,
            "could not be loaded",
            None,
            id="missing-engine",
        ),
        pytest.param(
            _manifest(engine=4),
            SOURCE_BUNDLED,
            "manifest requires engine 4, current engine is 3",
            None,
            id="future-engine",
        ),
        pytest.param(
            _manifest(id_="codex"), SOURCE_BUNDLED, "does not match claude", None, id="wrong-id"
        ),
        pytest.param(
            _manifest(id_="Claude-Code"), SOURCE_REMOTE, None, "2099.1.1", id="alias-like-id"
        ),
        pytest.param(
            _manifest(id_="mine", aliases='"claude"'),
            SOURCE_REMOTE,
            None,
            "2099.1.1",
            id="alias-matches",
        ),
    ],
)
def test_remote_layer(
    dirs: ManifestDirs, text: str, kind: str, warning_part: str | None, cached: str | None
) -> None:
    path = _write(dirs.remote_dir, text)
    loaded = load_agent_manifest(Agent.CLAUDE, dirs)
    assert loaded.source_kind == kind
    assert loaded.cached_remote_version == cached
    if warning_part is None:
        assert loaded.warning is None
    else:
        assert loaded.warning is not None
        assert loaded.warning.startswith(f"ignored remote manifest {path} because")
        assert warning_part in loaded.warning
    if kind == SOURCE_REMOTE:
        assert loaded.source_display == f"remote:{path}"
        assert _rule_ids(loaded.manifest.rules) == ["probe_rule"]


def test_remote_with_invalid_utf8_falls_back(dirs: ManifestDirs) -> None:
    (dirs.remote_dir / "claude.toml").write_bytes(b'id = "claude\xff"\n')
    loaded = load_agent_manifest(Agent.CLAUDE, dirs)
    assert loaded.source_kind == SOURCE_BUNDLED
    assert loaded.warning is not None and "could not be loaded" in loaded.warning


def test_valid_override_wins_without_version(dirs: ManifestDirs) -> None:
    path = _write(dirs.override_dir, _manifest(version=None, engine=None, rule="mine"))
    loaded = load_agent_manifest(Agent.CLAUDE, dirs)
    assert loaded.source_kind == SOURCE_OVERRIDE
    assert loaded.source_display == str(path)
    assert loaded.warning is None
    assert loaded.local_override_shadowing_remote is False
    assert _rule_ids(loaded.manifest.rules) == ["mine"]


def test_override_over_remote_shadows(dirs: ManifestDirs) -> None:
    _write(dirs.remote_dir, _manifest(rule="remote_rule"))
    _write(dirs.override_dir, _manifest(rule="mine", version=None))
    loaded = load_agent_manifest(Agent.CLAUDE, dirs)
    assert loaded.source_kind == SOURCE_OVERRIDE
    assert loaded.local_override_shadowing_remote is True
    assert loaded.cached_remote_version == "2099.1.1"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param("rules = 3", "because it could not be loaded", id="invalid"),
        pytest.param(
            'id = "claude"\nbogus = 1\n', "because it could not be loaded", id="unknown-key"
        ),
        pytest.param(
            _manifest(id_="codex"), "because manifest id codex does not match claude", id="wrong-id"
        ),
    ],
)
def test_invalid_override_falls_back_to_remote_and_still_shadows(
    dirs: ManifestDirs, text: str, reason: str
) -> None:
    remote = _write(dirs.remote_dir, _manifest(rule="remote_rule"))
    override = _write(dirs.override_dir, text)
    loaded = load_agent_manifest(Agent.CLAUDE, dirs)
    assert loaded.source_kind == SOURCE_REMOTE
    assert loaded.path == remote
    assert loaded.local_override_shadowing_remote is True
    assert loaded.warning is not None
    assert loaded.warning.startswith(f"ignored override {override} {reason}")


def test_override_warning_replaces_remote_warning(dirs: ManifestDirs) -> None:
    _write(dirs.remote_dir, _manifest(version="1.0"))  # older than bundled → warning
    override = _write(dirs.override_dir, "nonsense = [")
    loaded = load_agent_manifest(Agent.CLAUDE, dirs)
    assert loaded.source_kind == SOURCE_BUNDLED
    assert loaded.cached_remote_version == "1.0"
    assert loaded.local_override_shadowing_remote is True
    assert loaded.warning is not None
    assert loaded.warning.startswith(f"ignored override {override}")


def test_cache_is_not_watched_until_reload(dirs: ManifestDirs) -> None:
    cache = ManifestCache(dirs)
    before = cache.get(Agent.CLAUDE)
    assert before is not None and before.source_kind == SOURCE_BUNDLED
    _write(dirs.remote_dir, _manifest(rule="remote_rule"))
    still = cache.get(Agent.CLAUDE)
    assert still is before
    assert still.cached_remote_version is None
    cache.reload()
    after = cache.get(Agent.CLAUDE)
    assert after is not None and after.source_kind == SOURCE_REMOTE
    screen = DetectionInput(screen="xyzzy\n")
    assert evaluate(after.manifest, screen).detection.state == "blocked"


def test_a_get_before_the_whole_build_resolves_only_that_agent(
    dirs: ManifestDirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restored pane's first tick must not compile every agent's manifest on the loop."""
    resolved: list[Agent] = []
    real = sources.load_agent_manifest

    def counting(agent: Agent, where: ManifestDirs) -> LoadedManifest:
        resolved.append(agent)
        return real(agent, where)

    monkeypatch.setattr(sources, "load_agent_manifest", counting)
    cache = ManifestCache(dirs)
    first = cache.get(Agent.CLAUDE)
    assert first is not None and resolved == [Agent.CLAUDE]
    assert cache.get(Agent.CLAUDE) is first and resolved == [Agent.CLAUDE]
    everything = cache.all()  # the whole build keeps what was served
    assert everything[Agent.CLAUDE] is first
    assert sorted(resolved, key=str) == sorted(SCREEN_MANIFEST_AGENTS, key=str)


def test_what_was_served_early_holds_until_reload(dirs: ManifestDirs) -> None:
    cache = ManifestCache(dirs)
    before = cache.get(Agent.CLAUDE)
    _write(dirs.remote_dir, _manifest(rule="remote_rule"))
    assert cache.all()[Agent.CLAUDE] is before  # not re-read by the whole build
    cache.reload()
    after = cache.get(Agent.CLAUDE)
    assert after is not None and after.source_kind == SOURCE_REMOTE


@pytest.mark.parametrize("agent", SCREEN_MANIFEST_AGENTS, ids=str)
def test_an_early_get_equals_the_whole_build(dirs: ManifestDirs, agent: Agent) -> None:
    _write(dirs.override_dir, _manifest(rule="override_rule"))  # a layer to resolve too
    early = ManifestCache(dirs).get(agent)
    whole = ManifestCache(dirs).all()[agent]
    assert early is not None
    assert (early.source_kind, early.path, early.digest, early.warning) == (
        whole.source_kind,
        whole.path,
        whole.digest,
        whole.warning,
    )


def test_agents_without_manifest_are_absent() -> None:
    cache = ManifestCache(
        ManifestDirs(Path("/nonexistent/o"), Path("/nonexistent/r"), Path("/nonexistent/s"))
    )
    assert cache.get(Agent.OMP) is None
    assert cache.get(Agent.MASTRACODE) is None
    assert set(cache.all()) == set(SCREEN_MANIFEST_AGENTS)


def test_update_status_file(tmp_path: Path) -> None:
    path = tmp_path / "status.toml"
    assert read_update_status(path) == {}
    path.write_text("garbage = [", "utf-8")
    assert read_update_status(path) == {}
    path.write_text(
        'last_check_unix = 5\n[agents.claude]\nlast_result = "failed"\nlast_error = "boom"\n',
        "utf-8",
    )
    status = read_update_status(path)
    assert status["claude"].last_result == "failed"
    assert status["claude"].last_error == "boom"


@pytest.mark.parametrize(
    ("a", "b", "cmp"),
    [
        ("1.2", "1.2.0", 0),
        ("1.2.1", "1.2", 1),
        ("2026.6.10.1", "2026.6.9.9", 1),
        ("2026.06.10", "2026.6.10", 0),
        ("1", "2", -1),
    ],
)
def test_version_ordering(a: str, b: str, cmp: int) -> None:
    va, vb = parse_version(a), parse_version(b)
    assert ((va > vb) - (va < vb)) == cmp


def test_override_that_validates_but_cannot_compile(dirs: ManifestDirs) -> None:
    """A class intersection is valid Rust but unsupported here: "could not be compiled"."""
    override = _write(
        dirs.override_dir,
        'id = "claude"\n[[rules]]\nid = "x"\nstate = "idle"\nregex = ["[a-c&&b]"]\n',
    )
    loaded = load_agent_manifest(Agent.CLAUDE, dirs)
    assert loaded.source_kind == SOURCE_BUNDLED
    assert loaded.warning is not None
    assert loaded.warning.startswith(
        f"ignored override {override} because it could not be compiled"
    )
