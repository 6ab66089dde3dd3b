"""Where each agent's active manifest comes from: bundled, cached remote, or local override.

Precedence (detection-spec §7.2): a valid override beats a cached remote file that is
not older than the bundled one, which beats the bundled file. Every fallback keeps
working rules and says why in ``warning``. Files are read only on (re)load, never
watched: detection keeps using the cache until an explicit reload (§7.6).
"""

from __future__ import annotations

import hashlib
import threading
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from msgspec import Struct

from herdr.config import paths
from herdr.detect.agents import (
    AGENT_INFO,
    SCREEN_MANIFEST_AGENTS,
    Agent,
    is_user_agent,
    parse_agent_label,
    user_agents,
)
from herdr.detect.manifest import (
    ENGINE_VERSION,
    Manifest,
    ManifestCompileError,
    ManifestError,
    parse_manifest,
    parse_version,
)
from herdr.detect.owned_files import UntrustedFile, check_dir, read_owned
from herdr.detect.user_registry import SOURCE_USER_KIND, UserKindRegistry

SOURCE_BUNDLED = "bundled"
SOURCE_REMOTE = "remote"
SOURCE_OVERRIDE = "local override"
MAX_OVERRIDE_BYTES = 1 << 20


class LoadedManifest(Struct, frozen=True):
    """One agent's active manifest and how it was chosen."""

    agent: Agent
    manifest: Manifest
    source_kind: str
    path: Path | None
    cached_remote_version: str | None
    local_override_shadowing_remote: bool
    warning: str | None
    # Why each other layer did not decide (explain's ``manifest_not_used``), oldest first.
    not_used: tuple[str, ...] = ()
    bundled_version: str | None = None
    # sha256 of the deciding file(s): a reload compares it to tell which agents changed.
    digest: str = ""

    @property
    def source_display(self) -> str:
        """``bundled``, ``remote:<path>`` or the override path (explain's manifest_source)."""
        if self.source_kind == SOURCE_BUNDLED:
            return SOURCE_BUNDLED
        if self.source_kind == SOURCE_REMOTE:
            return f"remote:{self.path}"
        if self.source_kind == SOURCE_USER_KIND:
            return f"user:{self.path}"
        return str(self.path)

    @property
    def active_version(self) -> str | None:
        return self.manifest.version


class ManifestDirs(Struct, frozen=True):
    """The two directories manifests are read from besides the package."""

    override_dir: Path
    remote_dir: Path
    status_file: Path
    # ``$XDG_CONFIG_HOME/herdr/agents``: user-defined kinds (None: none are loaded).
    user_dir: Path | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ManifestDirs:
        return cls(
            Path(paths.manifest_override_dir(env)),
            Path(paths.manifest_remote_dir(env)),
            Path(paths.manifest_status_file(env)),
            Path(paths.config_dir(env)) / "agents",
        )


def bundled_manifest_text(agent: Agent) -> str:
    """The TOML text shipped in ``herdr/detect/manifests``."""
    name = AGENT_INFO[agent].manifest_file
    if name is None:
        raise KeyError(f"agent {agent.label} has no screen manifest")
    return (resources.files("herdr.detect") / "manifests" / name).read_text("utf-8")


def load_bundled(agent: Agent) -> Manifest:
    """Parse a bundled manifest; failure here is a packaging bug, so it propagates."""
    return parse_manifest(bundled_manifest_text(agent))


def manifest_id_matches(manifest: Manifest, agent: Agent) -> bool:
    """§7.3: id or an alias equals the label, or parses (leniently) to the agent."""
    label = agent.label
    names = (manifest.id, *manifest.aliases)
    if label in names:
        return True
    return any(parse_agent_label(name) is agent for name in names)


def parse_remote_manifest(text: str, agent: Agent) -> Manifest:
    """Accept a remote manifest only with a matching id, a version and a usable engine."""
    manifest = parse_manifest(text)
    if not manifest_id_matches(manifest, agent):
        raise ManifestError(f"manifest id {manifest.id} does not match {agent.label}")
    if manifest.version is None:
        raise ManifestError("remote manifest is missing version")
    if manifest.min_engine_version is None:
        raise ManifestError("remote manifest is missing min_engine_version")
    if manifest.min_engine_version > ENGINE_VERSION:
        raise ManifestError(
            f"manifest requires engine {manifest.min_engine_version}, "
            f"current engine is {ENGINE_VERSION}"
        )
    return manifest


def text_digest(*texts: str) -> str:
    """The identity of manifest content (an edit without a version bump still counts)."""
    h = hashlib.sha256()
    for text in texts:
        h.update(text.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def _read_text(path: Path) -> str:
    """Read a manifest file; invalid UTF-8 is a load error, not a crash."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestError(f"file is not valid UTF-8: {exc}") from exc


def read_override(path: Path) -> str:
    """A local override's text, read only if it and its directory are ours alone
    (`owned_files`); raises FileNotFoundError when there is none, `UntrustedFile` when
    it is refused, ManifestError for bad UTF-8 or size."""
    check_dir(str(path.parent))
    data = read_owned(str(path), MAX_OVERRIDE_BYTES)
    if len(data) > MAX_OVERRIDE_BYTES:
        raise ManifestError(f"file is larger than {MAX_OVERRIDE_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestError(f"file is not valid UTF-8: {exc}") from exc


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _failure(exc: BaseException) -> str:
    """The spec's wording: a valid manifest whose regexes fail to compile vs anything else."""
    what = "compiled" if isinstance(exc, ManifestCompileError) else "loaded"
    return f"could not be {what}: {_one_line(exc)}"


def load_agent_manifest(agent: Agent, dirs: ManifestDirs) -> LoadedManifest:
    """Resolve one agent's active manifest with every fallback of §7.2."""
    bundled_text = bundled_manifest_text(agent)
    bundled = parse_manifest(bundled_text)
    bv = bundled.version
    result = LoadedManifest(
        agent, bundled, SOURCE_BUNDLED, None, None, False, None, (), bv, text_digest(bundled_text)
    )

    remote_path = dirs.remote_dir / f"{agent.label}.toml"
    if remote_path.is_file():
        result = _apply_remote(result, remote_path, bundled)

    override_path = dirs.override_dir / f"{agent.label}.toml"
    override_text: str | None = None
    read_error: ManifestError | OSError | None = None
    try:
        override_text = read_override(override_path)
    except FileNotFoundError:
        return result
    except UntrustedFile as exc:
        return _with_warning(result, f"ignored override {exc}", f"override {exc}: ignored")
    except (ManifestError, OSError) as exc:
        read_error = exc
    shadowing = result.cached_remote_version is not None
    fallback = LoadedManifest(
        agent,
        result.manifest,
        result.source_kind,
        result.path,
        result.cached_remote_version,
        shadowing,
        result.warning,
        result.not_used,
        bv,
        result.digest,
    )
    try:
        if read_error is not None or override_text is None:
            raise read_error or ManifestError("unreadable")
        override = parse_manifest(override_text)
    except (ManifestError, OSError) as exc:
        return _with_warning(
            fallback,
            f"ignored override {override_path} because it {_failure(exc)}",
            f"override {override_path} ignored: it {_failure(exc)}",
        )
    if not manifest_id_matches(override, agent):
        return _with_warning(
            fallback,
            f"ignored override {override_path} because manifest id {override.id} "
            f"does not match {agent.label}",
            f"override {override_path} ignored: manifest id {override.id} "
            f"does not match {agent.label}",
        )
    return LoadedManifest(
        agent,
        override,
        SOURCE_OVERRIDE,
        override_path,
        result.cached_remote_version,
        shadowing,
        None,
        (*result.not_used, *_shadowed_by_override(result, override_path)),
        bv,
        text_digest(override_text),
    )


def _shadowed_by_override(result: LoadedManifest, override_path: Path) -> tuple[str, ...]:
    """What the override beat: the layer that would otherwise have decided."""
    kind = "remote" if result.source_kind == SOURCE_REMOTE else "bundled"
    version = result.manifest.version or "unversioned"
    return (f"{kind} {version} not used: local override {override_path} always wins",)


def _with_warning(base: LoadedManifest, warning: str, note: str | None = None) -> LoadedManifest:
    return LoadedManifest(
        base.agent,
        base.manifest,
        base.source_kind,
        base.path,
        base.cached_remote_version,
        base.local_override_shadowing_remote,
        warning,
        base.not_used + ((note,) if note is not None else ()),
        base.bundled_version,
        base.digest,
    )


def _apply_remote(base: LoadedManifest, path: Path, bundled: Manifest) -> LoadedManifest:
    try:
        remote_text = _read_text(path)
        remote = parse_remote_manifest(remote_text, base.agent)
    except (ManifestError, OSError) as exc:
        return _with_warning(
            base,
            f"ignored remote manifest {path} because it {_failure(exc)}",
            f"remote {path} ignored: it {_failure(exc)}",
        )
    assert remote.version is not None  # checked by parse_remote_manifest
    remote_version = remote.version
    bv = bundled.version
    if bv is not None and parse_version(remote_version) < parse_version(bv):
        return LoadedManifest(
            base.agent,
            bundled,
            SOURCE_BUNDLED,
            None,
            remote_version,
            False,
            f"ignored remote manifest {path} because cached version {remote_version} "
            f"is older than bundled {bv}",
            (*base.not_used, f"remote {remote_version} ignored: older than bundled {bv}"),
            bv,
            base.digest,
        )
    beaten = f"bundled {bv or 'unversioned'} not used: remote {remote_version} is not older"
    return LoadedManifest(
        base.agent,
        remote,
        SOURCE_REMOTE,
        path,
        remote_version,
        False,
        None,
        (*base.not_used, beaten),
        bv,
        text_digest(remote_text),
    )


class AgentUpdateStatus(Struct, frozen=True):
    """One agent's entry of the remote-update status file."""

    last_result: str | None
    last_error: str | None


def read_update_status(path: Path) -> dict[str, AgentUpdateStatus]:
    """Per-agent update results; a missing or unparsable file reads as empty."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    agents = data.get("agents")
    if not isinstance(agents, dict):
        return {}
    out: dict[str, AgentUpdateStatus] = {}
    for label, entry in agents.items():
        if not isinstance(entry, dict):
            continue
        result = entry.get("last_result")
        error = entry.get("last_error")
        out[str(label)] = AgentUpdateStatus(
            result if isinstance(result, str) else None,
            error if isinstance(error, str) else None,
        )
    return out


_SCREEN_AGENTS = frozenset(SCREEN_MANIFEST_AGENTS)


class ManifestCache:
    """Process-wide compiled manifests; rebuilt whole and swapped only on ``reload``.

    Before the whole set is built (the server builds it off the loop once start-up is
    over), ``get`` resolves just the agent asked for and keeps it: a restored pane's
    first tick compiles its own agent's manifest (15-19 ms in a fresh process), not all
    twenty (65-96 ms, on the loop). The whole build keeps what was already served, so
    nothing changes under a pane before a ``reload``.
    """

    def __init__(self, dirs: ManifestDirs) -> None:
        self._dirs = dirs
        self._lock = threading.Lock()
        self._loaded: dict[Agent, LoadedManifest] | None = None
        self._early: dict[Agent, LoadedManifest] = {}  # served before the whole build
        user_dir = str(dirs.user_dir) if dirs.user_dir is not None else ""
        self.user_kinds = UserKindRegistry(user_dir)

    @property
    def dirs(self) -> ManifestDirs:
        return self._dirs

    def _build(
        self, keep: Mapping[Agent, LoadedManifest] | None = None
    ) -> dict[Agent, LoadedManifest]:
        kept = keep or {}
        built = {
            agent: kept.get(agent) or load_agent_manifest(agent, self._dirs)
            for agent in SCREEN_MANIFEST_AGENTS
        }
        if self._dirs.user_dir is not None:
            self.user_kinds.load()
            for agent in user_agents():
                kind = self.user_kinds.kinds[agent.label]
                prefixes = (f"{kind.spec.path}:", f"{kind.manifest_path}:")
                errors = [e for e in self.user_kinds.errors if e.startswith(prefixes)]
                clashes = [e for e in self.user_kinds.conflicts if e.startswith(prefixes)]
                warning = f"kept the last good definition: {errors[0]}" if errors else None
                built[agent] = LoadedManifest(
                    agent,
                    kind.manifest,
                    SOURCE_USER_KIND,
                    Path(kind.manifest_path),
                    None,
                    False,
                    warning or (clashes[0] if clashes else None),
                    digest=kind.digest,
                )
        return built

    def all(self) -> dict[Agent, LoadedManifest]:
        loaded = self._loaded
        if loaded is None:
            with self._lock:
                if self._loaded is None:
                    self._loaded = self._build(keep=dict(self._early))
                    self._early = {}
                loaded = self._loaded
        return loaded

    def get(self, agent: Agent) -> LoadedManifest | None:
        """The active manifest, or None for agents without one (omp, mastracode)."""
        loaded = self._loaded
        if loaded is not None:
            return loaded.get(agent)
        if agent in _SCREEN_AGENTS:
            early = self._early.get(agent)
            if early is None:
                early = self._early.setdefault(agent, load_agent_manifest(agent, self._dirs))
            loaded = self._loaded  # the whole build may have landed meanwhile
            return loaded.get(agent) if loaded is not None else early
        if not is_user_agent(agent):
            return None
        return self.all().get(agent)

    def reload(self) -> dict[Agent, LoadedManifest]:
        """Re-read every layer; the old set stays in use until the new one is complete."""
        with self._lock:
            fresh = self._build()
            self._loaded = fresh
            self._early = {}
        return fresh

    def load_one(self, agent: Agent) -> LoadedManifest | None:
        """Resolve one agent without building the whole cache (offline explain)."""
        if agent not in SCREEN_MANIFEST_AGENTS:
            return self.all().get(agent) if is_user_agent(agent) else None
        if self._loaded is not None:
            return self._loaded.get(agent)
        return load_agent_manifest(agent, self._dirs)
