"""``scripts/install`` puts a working ``herdr`` on PATH from a bare checkout."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install"


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / "d"), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.slow
def test_venv_install_links_herdr_into_local_bin(tmp_path: Path) -> None:
    result = _run(tmp_path, "--method", "venv")
    assert result.returncode == 0, result.stderr
    link = tmp_path / ".local" / "bin" / "herdr"
    assert link.is_symlink()
    assert f"installed: {link} (venv)" in result.stdout
    assert f'export PATH="{link.parent}:$PATH"' in result.stdout  # not on PATH: says how
    env = {"HOME": str(tmp_path), "PATH": f"{link.parent}:/usr/bin:/bin"}
    shell = subprocess.run(
        ["sh", "-c", "command -v herdr && herdr --version"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shell.returncode == 0, shell.stderr
    assert shell.stdout.splitlines() == [str(link), shell.stdout.splitlines()[1]]
    assert "protocol 22" in shell.stdout


@pytest.mark.parametrize(
    "args", [pytest.param(["--method", "brew"], id="bad-method"), pytest.param(["-x"], id="flag")]
)
def test_bad_arguments_exit_2_and_install_nothing(tmp_path: Path, args: list[str]) -> None:
    result = _run(tmp_path, *args)
    assert result.returncode == 2
    assert "install:" in result.stderr
    assert not (tmp_path / ".local").exists()
