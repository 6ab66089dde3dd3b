"""Remote manifest updates over real HTTP on loopback (detection-spec §7.5/§7.6).

A ``http.server`` in a thread serves a catalog and manifests. The pass itself runs
against real files in a temporary state dir; the live cases run the real CLI against
a real server whose pane runs the fake Claude Code, and watch its state change.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import tomllib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from herdr.detect.manifest.sources import ManifestDirs
from herdr.detect.remote.check import CheckReport, run_check
from herdr.detect.remote.fetch import fetch_text
from herdr.server.manifest_updates import write_cache_file
from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.fake_env import agent_server, launch, new_workspace, ok, wait_status
from herdr_testing.schema22 import assert_valid_result


class Site:
    """Routes path → (body, delay seconds); anything else is a 404."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[bytes, float]] = {}
        self.hits: list[str] = []  # every path asked for, in order
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.hits.append(self.path)
                body, delay = site.routes.get(self.path, (b"", -1.0))
                if delay < 0:
                    self.send_error(404)
                    return
                time.sleep(delay)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/agent-detection/index.toml"

    def put(self, name: str, body: str | bytes, delay: float = 0.0) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.routes[f"/agent-detection/{name}"] = (data, delay)

    def catalog(self, *entries: tuple[str, str, str | None]) -> None:
        lines = ["schema_version = 1"]
        for ident, path, sha in entries:
            lines += ["[[agents]]", f'id = "{ident}"', f'path = "{path}"']
            if sha is not None:
                lines.append(f'sha256 = "{sha}"')
        self.put("index.toml", "\n".join(lines) + "\n")

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site()
    yield s
    s.close()


def claude_manifest(version: str, state: str = "blocked", *, note: str = "") -> str:
    """A remote Claude manifest whose one rule fires on the fake agent's ``❯`` prompt."""
    return (
        f"# {note}\n"
        f'id = "claude"\nversion = "{version}"\nmin_engine_version = 1\n\n'
        f'[[rules]]\nid = "remote_marker"\nstate = "{state}"\npriority = 1000\n'
        "region = \"bottom_non_empty_lines(12)\"\nline_regex = ['❯']\n"
    )


def dirs_in(root: Path) -> ManifestDirs:
    return ManifestDirs(root / "override", root / "remote", root / "status.toml")


def check(root: Path, site: Site, **fetch: Any) -> CheckReport:
    def fetcher(url: str, sha: str | None) -> str:
        return fetch_text(url, sha256=sha, **fetch)

    return run_check(dirs_in(root), site.url, write_cache_file, fetcher=fetcher)


def status_doc(root: Path) -> dict[str, Any]:
    return tomllib.loads((root / "status.toml").read_text("utf-8"))


# --------------------------------------------------------------------------- one pass


def test_newer_manifest_is_committed_and_status_written(tmp_path: Path, site: Site) -> None:
    site.put("claude.toml", claude_manifest("2099.1"))
    site.catalog(("claude", "claude.toml", None), ("no-such-agent", "x.toml", None))
    report = check(tmp_path, site)
    assert report.last_result == "checked"
    assert report.updated == [("claude", "2099.1")]
    assert "unknown agent" in report.warnings[0]
    assert (tmp_path / "remote" / "claude.toml").read_text("utf-8") == claude_manifest("2099.1")
    doc = status_doc(tmp_path)
    assert doc["last_result"] == "checked"
    assert doc["agents"]["claude"]["last_result"] == "updated"
    assert doc["agents"]["claude"]["cached_version"] == "2099.1"
    assert doc["agents"]["claude"]["attempted_version"] == "2099.1"
    assert list((tmp_path / "remote").iterdir()) == [tmp_path / "remote" / "claude.toml"]
    # The same bytes again: "current", nothing rewritten.
    again = check(tmp_path, site)
    assert again.updated == [] and again.agents["claude"].last_result == "current"


@pytest.mark.parametrize(
    ("second", "error"),
    [
        (claude_manifest("2098.9"), "remote version 2098.9 is older than cached 2099.1"),
        (
            claude_manifest("2099.1", note="edited"),
            "remote version 2099.1 changed content without a version bump",
        ),
        (claude_manifest("2099.1.0", note="edited"), "changed content without a version bump"),
        ('id = "claude"\nversion = "2100"\nmin_engine_version = 1\n[[rules]]\n', "invalid"),
        (
            claude_manifest("2100").replace("min_engine_version = 1", "min_engine_version = 99"),
            "requires engine 99",
        ),
        (claude_manifest("2100").replace('id = "claude"', 'id = "codex"'), "does not match"),
        (claude_manifest("2100").replace('version = "2100"', 'version = "2100.x"'), "version"),
    ],
    ids=[
        "older",
        "same-version-new-content",
        "equal-by-zero",
        "invalid",
        "engine",
        "wrong-id",
        "bad-version",
    ],
)
def test_rejected_update_keeps_the_cached_manifest(
    tmp_path: Path, site: Site, second: str, error: str
) -> None:
    site.put("claude.toml", claude_manifest("2099.1"))
    site.catalog(("claude", "claude.toml", None))
    assert check(tmp_path, site).updated == [("claude", "2099.1")]
    site.put("claude.toml", second)
    report = check(tmp_path, site)
    assert report.updated == []
    entry = report.agents["claude"]
    assert entry.last_result == "failed" and error in (entry.last_error or ""), entry
    assert entry.cached_version == "2099.1" and entry.attempted_version is None
    assert (tmp_path / "remote" / "claude.toml").read_text("utf-8") == claude_manifest("2099.1")
    assert status_doc(tmp_path)["agents"]["claude"]["last_error"] == entry.last_error


@pytest.mark.parametrize(
    "garbage",
    [b"\xff\xfe not utf-8", b"id = = broken", claude_manifest("1").encode()[:40]],
    ids=["not-utf8", "not-toml", "truncated"],
)
def test_corrupt_cache_file_is_replaced(tmp_path: Path, site: Site, garbage: bytes) -> None:
    (tmp_path / "remote").mkdir()
    (tmp_path / "remote" / "claude.toml").write_bytes(garbage)
    (tmp_path / "status.toml").write_bytes(b"\x00 not toml")
    site.put("claude.toml", claude_manifest("2099.1"))
    site.catalog(("claude", "claude.toml", None))
    report = check(tmp_path, site)
    assert report.updated == [("claude", "2099.1")]
    assert any("status file" in w for w in report.warnings)
    assert status_doc(tmp_path)["agents"]["claude"]["last_result"] == "updated"


def test_server_down_is_a_failed_check(tmp_path: Path) -> None:
    gone = Site()
    url = gone.url
    gone.close()  # the port is closed: connection refused
    report = run_check(dirs_in(tmp_path), url, write_cache_file)
    assert report.last_result.startswith(f"failed: failed to fetch {url}")
    assert status_doc(tmp_path)["last_result"] == report.last_result
    assert not (tmp_path / "remote").exists()


@pytest.mark.parametrize(
    "case",
    [
        (claude_manifest("2099.1"), 3.0, None, "timed out"),
        ("#" * 262_145, 0.0, None, "larger than 262144 bytes"),
        (claude_manifest("2099.1"), 0.0, "0" * 64, "checksum mismatch"),
        (b"\xff\xff", 0.0, None, "not valid UTF-8"),
    ],
    ids=["slow", "oversized", "checksum", "not-utf8"],
)
def test_bad_download_is_reported_per_agent(
    tmp_path: Path, site: Site, case: tuple[str | bytes, float, str | None, str]
) -> None:
    body, delay, sha, error = case
    site.put("claude.toml", body, delay)
    site.put("codex.toml", b"")  # an empty file fails validation; the pass goes on
    site.catalog(("claude", "claude.toml", sha), ("codex", "codex.toml", None))
    report = check(tmp_path, site, timeout_s=0.5)
    assert report.last_result == "checked" and report.updated == []
    claude = report.agents["claude"]
    assert claude.last_result == "failed" and error in (claude.last_error or ""), claude
    assert claude.last_error is not None and claude.last_error.startswith("fetch failed: ")
    assert report.agents["codex"].last_result == "failed"
    assert not (tmp_path / "remote" / "claude.toml").exists()


def test_matching_checksum_is_accepted(tmp_path: Path, site: Site) -> None:
    text = claude_manifest("2099.1")
    site.put("claude.toml", text)
    site.catalog(("claude", "claude.toml", hashlib.sha256(text.encode()).hexdigest()))
    assert check(tmp_path, site).updated == [("claude", "2099.1")]


def test_oversized_catalog_fails_the_check(tmp_path: Path, site: Site) -> None:
    site.put("index.toml", "schema_version = 1\n" + "#" * 262_144)
    report = check(tmp_path, site)
    assert report.last_result.startswith("failed: ") and "larger than" in report.last_result


# --------------------------------------------------------------------------- live


def _manifests(server: ServerHandle) -> dict[str, Any]:
    result = ok(server.request("server.agent_manifests", {}))
    assert_valid_result(result)
    return result


def _claude(result: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = next(m for m in result["manifests"] if m["agent"] == "claude")
    return entry


def _update(herdr_env: HerdrEnv) -> dict[str, Any]:
    done = herdr_env.cli("server", "update-agent-manifests")
    assert done.stdout, done.stderr
    envelope: dict[str, Any] = json.loads(done.stdout)
    assert_valid_result(envelope["result"])
    return envelope


@pytest.mark.slow
def test_published_fix_changes_a_running_pane(herdr_env: HerdrEnv, site: Site) -> None:
    server = agent_server(herdr_env, HERDR_AGENT_DETECTION_MANIFEST_CATALOG_URL=site.url)
    pane = f"{new_workspace(server)}:p1"
    launch(server, pane, "claude")
    assert _claude(_manifests(server))["source_kind"] == "bundled"

    site.put("claude.toml", claude_manifest("2099.1"))
    site.catalog(("claude", "claude.toml", None))
    envelope = _update(herdr_env)
    assert _claude(envelope["result"])["source_kind"] == "remote"
    wait_status(server, pane, "blocked")  # the running pane re-evaluated, no restart
    claude = _claude(_manifests(server))
    assert claude["active_version"] == "2099.1" and claude["remote_update_result"] == "updated"
    assert isinstance(claude["remote_last_checked_unix"], int)
    assert _manifests(server)["last_result"] == "checked"

    # An invalid newer manifest is rejected; the running rules stay.
    site.put("claude.toml", claude_manifest("2100").replace("line_regex", "line_regexx"))
    _update(herdr_env)
    claude = _claude(_manifests(server))
    assert claude["active_version"] == "2099.1" and claude["remote_update_result"] == "failed"
    assert claude["remote_update_error"]
    wait_status(server, pane, "blocked")

    # A local override still wins over the cached remote manifest.
    override = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "agent-detection"
    override.mkdir(parents=True, exist_ok=True)
    (override / "claude.toml").write_text(claude_manifest("1", state="working"), "utf-8")
    ok(server.request("server.reload_agent_manifests", {}))
    claude = _claude(_manifests(server))
    assert claude["source_kind"] == "local override"
    assert claude["local_override_shadowing_remote"] is True
    assert claude["cached_remote_version"] == "2099.1"
    wait_status(server, pane, "working")


@pytest.mark.slow
def test_background_check_applies_an_update(herdr_env: HerdrEnv, site: Site) -> None:
    server = agent_server(
        herdr_env,
        HERDR_AGENT_DETECTION_MANIFEST_CATALOG_URL=site.url,
        HERDR_AGENT_DETECTION_CHECK_INTERVAL_S="0.3",
    )
    pane = f"{new_workspace(server)}:p1"
    launch(server, pane, "claude")  # checks so far got a 404: nothing changes
    site.put("claude.toml", claude_manifest("2099.2"))
    site.catalog(("claude", "claude.toml", None))
    wait_until(
        lambda: _claude(_manifests(server))["active_version"] == "2099.2",
        timeout=20,
        interval=0.1,
        message="the background check never applied the update",
    )
    wait_status(server, pane, "blocked")
    assert ok(server.request("ping", {}))


@pytest.mark.slow
def test_background_check_is_silent_and_harmless_offline(herdr_env: HerdrEnv) -> None:
    server = agent_server(
        herdr_env,
        HERDR_AGENT_DETECTION_MANIFEST_CATALOG_URL="http://127.0.0.1:9/index.toml",
        HERDR_AGENT_DETECTION_CHECK_INTERVAL_S="0.2",
    )
    status = Path(herdr_env.env["XDG_STATE_HOME"]) / "herdr" / "agent-detection" / "status.toml"
    wait_until(status.exists, timeout=20, interval=0.1, message="no check ran")
    result = _manifests(server)
    assert result["last_result"].startswith("failed: failed to fetch")
    assert _claude(result)["source_kind"] == "bundled"
    assert "Traceback" not in server.server.log_text()


@pytest.mark.slow
def test_manifest_check_off_means_no_background_request(herdr_env: HerdrEnv, site: Site) -> None:
    """``[update] manifest_check = false``: the server never asks the catalog, however
    short the interval; ``herdr server update-agent-manifests`` still works on demand
    (an explicit command is the user asking, so it is not gated by the key)."""
    config = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[update]\nmanifest_check = false\n", "utf-8")
    site.put("claude.toml", claude_manifest("2099.3"))
    site.catalog(("claude", "claude.toml", None))
    server = agent_server(
        herdr_env,
        HERDR_AGENT_DETECTION_MANIFEST_CATALOG_URL=site.url,
        HERDR_AGENT_DETECTION_CHECK_INTERVAL_S="0.05",
    )
    pane = f"{new_workspace(server)}:p1"
    launch(server, pane, "claude")  # the server has run for many would-be intervals by now
    time.sleep(1.0)  # ~20 more intervals of exposure; nothing is timed or asserted on it
    assert site.hits == []
    status = Path(herdr_env.env["XDG_STATE_HOME"]) / "herdr" / "agent-detection" / "status.toml"
    assert not status.exists()
    assert _claude(_manifests(server))["source_kind"] == "bundled"

    envelope = _update(herdr_env)
    assert site.hits == ["/agent-detection/index.toml", "/agent-detection/claude.toml"]
    assert _claude(envelope["result"])["active_version"] == "2099.3"
    wait_status(server, pane, "blocked")
