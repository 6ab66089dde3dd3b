"""plugins.json: link/unlink/enable/disable, atomic and locked writes, bad files refused."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from herdr.plugins import manifest as mf
from herdr.plugins.registry import Registry, RegistryError, registry_path

MANIFEST = """id = "{id}"
name = "N"
version = "0.1.0"
min_herdr_version = "0.9.0"
platforms = ["linux"]

[[actions]]
id = "go"
title = "Go"
command = ["true"]
"""


def _plugin(root: Path, plugin_id: str) -> Path:
    path = root / plugin_id
    path.mkdir(parents=True)
    (path / mf.MANIFEST_NAME).write_text(MANIFEST.format(id=plugin_id))
    return path


@pytest.fixture
def registry(tmp_path: Path) -> Registry:
    return Registry.of({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "c")})


def test_the_registry_lives_in_herdrs_config_dir(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "c")}
    assert registry_path(env) == tmp_path / "c" / "herdr" / "plugins.json"


def test_link_list_disable_enable_unlink(registry: Registry, tmp_path: Path) -> None:
    path = _plugin(tmp_path, "a.one")
    info = registry.link(str(path))
    assert info["plugin_id"] == "a.one"
    assert info["enabled"] is True
    assert info["manifest_path"] == str(path / mf.MANIFEST_NAME)
    assert info["plugin_root"] == str(path)
    assert info["source"] == {"kind": "local"}
    assert registry.set_enabled("a.one", False)["enabled"] is False
    assert [i["enabled"] for i in registry.infos()] == [False]
    assert registry.set_enabled("a.one", True)["enabled"] is True
    assert registry.unlink("a.one") is not None
    assert registry.unlink("a.one") is None
    assert registry.infos() == []


def test_link_disabled_and_by_manifest_file(registry: Registry, tmp_path: Path) -> None:
    path = _plugin(tmp_path, "b")
    info = registry.link(str(path / mf.MANIFEST_NAME), enabled=False)
    assert info["enabled"] is False and info["plugin_root"] == str(path)


def test_relinking_replaces_and_a_manifest_edit_shows_without_relink(
    registry: Registry, tmp_path: Path
) -> None:
    path = _plugin(tmp_path, "c")
    registry.link(str(path))
    registry.link(str(path))
    assert len(registry.entries()) == 1
    text = (path / mf.MANIFEST_NAME).read_text().replace('title = "Go"', 'title = "Went"')
    (path / mf.MANIFEST_NAME).write_text(text)
    assert registry.infos()[0]["actions"][0]["title"] == "Went"


def test_a_broken_manifest_keeps_the_last_good_one_with_a_warning(
    registry: Registry, tmp_path: Path
) -> None:
    path = _plugin(tmp_path, "d")
    registry.link(str(path))
    (path / mf.MANIFEST_NAME).write_text("id = ")
    (info,) = registry.infos()
    assert info["actions"][0]["id"] == "go"
    assert "manifest unavailable" in info["warnings"][0]


@pytest.mark.parametrize(
    ("content", "code"),
    [(None, "plugin_manifest_not_found"), ("id = 1\n", "invalid_plugin_manifest")],
    ids=["no-manifest", "bad-manifest"],
)
def test_link_refusals_change_nothing(
    registry: Registry, tmp_path: Path, content: str | None, code: str
) -> None:
    path = tmp_path / "x"
    path.mkdir()
    if content is not None:
        (path / mf.MANIFEST_NAME).write_text(content)
    with pytest.raises(mf.ManifestError) as caught:
        registry.link(str(path))
    assert caught.value.code == code
    assert not registry.path.exists()


@pytest.mark.parametrize(
    "plugin_id", ["../x", "a/b", "", "x" * 121], ids=["dotdot", "slash", "empty", "long"]
)
def test_invalid_ids_are_refused(registry: Registry, plugin_id: str) -> None:
    with pytest.raises(RegistryError) as caught:
        registry.set_enabled(plugin_id, True)
    assert caught.value.code == "invalid_plugin_id"


def test_unknown_plugin_is_plugin_not_found(registry: Registry) -> None:
    with pytest.raises(RegistryError) as caught:
        registry.set_enabled("nope", False)
    assert caught.value.code == "plugin_not_found"


@pytest.mark.parametrize(
    "content", [b"{not json", b"[]", b'{"plugins": 3}'], ids=["garbage", "list", "bad-plugins"]
)
def test_a_corrupt_registry_is_an_error_not_an_empty_list(
    registry: Registry, content: bytes
) -> None:
    registry.path.parent.mkdir(parents=True)
    registry.path.write_bytes(content)
    with pytest.raises(RegistryError) as caught:
        registry.infos()
    assert caught.value.code == "plugin_registry_load_failed"


def test_writes_are_atomic_private_and_leave_no_temp_files(
    registry: Registry, tmp_path: Path
) -> None:
    registry.link(str(_plugin(tmp_path, "e")))
    data = json.loads(registry.path.read_text())
    assert data["plugins"][0]["plugin_id"] == "e"
    assert registry.path.stat().st_mode & 0o777 == 0o600
    leftovers = [p.name for p in registry.path.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_concurrent_writers_lose_no_entry(registry: Registry, tmp_path: Path) -> None:
    paths = [_plugin(tmp_path, f"p{i}") for i in range(12)]
    threads = [threading.Thread(target=registry.link, args=(str(p),)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(e.plugin_id for e in registry.entries()) == sorted(f"p{i}" for i in range(12))
