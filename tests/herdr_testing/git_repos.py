"""Real git repositories for the worktree tests, with a private git config.

Every git call (the test's own and the server's) sees ``GIT_CONFIG_GLOBAL`` pointing at
a file in the test tree with a user name and email, and no system config, so the
machine's git settings never leak in.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from herdr_testing.servers import HerdrEnv, ServerHandle


def git_env(root: Path) -> dict[str, str]:
    """Variables that give git a private config under `root`."""
    config = root / "gitconfig"
    if not config.exists():
        config.write_text(
            "[user]\n\tname = Herdr Test\n\temail = test@example.invalid\n"
            "[init]\n\tdefaultBranch = main\n",
            encoding="utf-8",
        )
    return {"GIT_CONFIG_GLOBAL": str(config), "GIT_CONFIG_NOSYSTEM": "1"}


def git(herdr: HerdrEnv, cwd: Path, *args: str) -> str:
    """Run git like the user would; fail the test if it fails."""
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**herdr.env, **git_env(herdr.root)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, f"git {args} failed: {proc.stderr}"
    return proc.stdout


def make_repo(herdr: HerdrEnv, name: str = "proj") -> Path:
    """A repository with one commit on ``main``."""
    repo = herdr.root / name
    repo.mkdir()
    git(herdr, repo, "init", "-q", "-b", "main")
    (repo / "README").write_text("hello\n", encoding="utf-8")
    git(herdr, repo, "add", "README")
    git(herdr, repo, "commit", "-q", "-m", "first")
    return repo


def start_git_server(herdr: HerdrEnv) -> ServerHandle:
    """A server whose git sees the private config."""
    herdr.env.update(git_env(herdr.root))
    return ServerHandle(herdr, herdr.start_server())
