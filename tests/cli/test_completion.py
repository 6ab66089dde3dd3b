"""``herdr completion bash|zsh|fish``: scripts generated from the argparse tree, run in
the real shells (bash always; zsh and fish when installed, else structural checks)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from herdr.cli.completion import tree
from herdr.cli.main import NOUNS, build_parser
from herdr_testing import HerdrEnv

NODES = {node.path: node for node in tree(build_parser(None))}


def _script(herdr_env: HerdrEnv, shell: str) -> Path:
    result = herdr_env.cli("completion", shell)
    assert result.returncode == 0, result.stderr
    path = herdr_env.root / f"herdr.{shell}"
    path.write_text(result.stdout, encoding="utf-8")
    return path


# (words on the command line, the last being completed; what must be offered)
CASES = [
    pytest.param(["herdr", ""], set(NOUNS), id="nouns"),
    pytest.param(["herdr", "pa"], {"pane"}, id="noun-prefix"),
    pytest.param(["herdr", "pane", "sp"], {"split"}, id="verb-prefix"),
    pytest.param(["herdr", "pane", "split", "--dir"], {"--direction"}, id="flag-prefix"),
    pytest.param(["herdr", "pane", "split", "--direction", ""], {"right", "down"},
                 id="flag-choices"),
    pytest.param(["herdr", "--session", "work", "pane", "split", "--direction", "d"], {"down"},
                 id="after-a-root-flag-value"),
    pytest.param(["herdr", "pane", "move", "w1:p1", "--sp"], {"--split"}, id="after-a-positional"),
    pytest.param(["herdr", "status", ""], {"server", "client"}, id="positional-choices"),
    pytest.param(["herdr", "completion", ""], {"bash", "zsh", "fish"}, id="completion-shells"),
    pytest.param(["herdr", "config", "check", "--"], {"--json", "--help"}, id="config-flags"),
    pytest.param(["herdr", "agent", "wait", "--until", ""],
                 {"idle", "working", "blocked", "done", "unknown"}, id="agent-until"),
]  # fmt: skip


def _bash_offers(script: Path, words: list[str]) -> set[str]:
    program = (
        f"source {script}\n"
        "complete -p herdr\n"
        'COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()\n'
        "_herdr\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program, "bash", *words],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "complete -F _herdr herdr"
    return set(lines[1:]) - {""}


@pytest.mark.parametrize(("words", "offered"), CASES)
def test_bash_completes(herdr_env: HerdrEnv, words: list[str], offered: set[str]) -> None:
    got = _bash_offers(_script(herdr_env, "bash"), words)
    assert got == offered if words[-1] else offered <= got, got


def test_bash_completes_files_for_a_path_flag(herdr_env: HerdrEnv) -> None:
    script = _script(herdr_env, "bash")
    (herdr_env.root / "some dir").mkdir()  # a space: one completion, not two words
    words = ["herdr", "workspace", "create", "--cwd", f"{herdr_env.root}/som"]
    assert _bash_offers(script, words) == {f"{herdr_env.root}/some dir"}


ZSH_STUBS = (  # the completion system's builtins, stubbed: print what would be offered
    "compdef() { :; }\n"
    'compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }\n'
    "_files() { print -r -- '<files>'; }\n"
)


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
@pytest.mark.parametrize(("words", "offered"), CASES)
def test_zsh_completes(herdr_env: HerdrEnv, words: list[str], offered: set[str]) -> None:
    script = _script(herdr_env, "zsh")
    assert subprocess.run(["zsh", "-n", str(script)], check=False).returncode == 0
    program = f'{ZSH_STUBS}source {script}\nwords=("$@"); CURRENT=$#\n_herdr\n'
    done = subprocess.run(
        ["zsh", "-f", "-c", program, "zsh", *words],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    got = set(done.stdout.splitlines())
    # zsh filters by the typed prefix itself: everything offered here starts from the node
    assert {w for w in got if w.startswith(words[-1])} >= offered, got


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
@pytest.mark.parametrize(("words", "offered"), CASES)
def test_fish_completes(herdr_env: HerdrEnv, words: list[str], offered: set[str]) -> None:
    script = _script(herdr_env, "fish")
    assert subprocess.run(["fish", "-n", str(script)], check=False).returncode == 0
    line = " ".join(words)
    done = subprocess.run(
        ["fish", "--no-config", "-c", f"source {script}; complete -C {line!r}"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
        env={**herdr_env.env, "HOME": str(herdr_env.root)},
    )
    got = {row.split("\t", 1)[0] for row in done.stdout.splitlines()}
    assert offered <= got, got


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_verb_and_flag_is_in_the_script(herdr_env: HerdrEnv, shell: str) -> None:
    """Structural: the script names every command path's sub-commands and flags."""
    text = _script(herdr_env, shell).read_text(encoding="utf-8")
    for path, node in NODES.items():
        assert path in text, path
        for name, _ in node.subcommands:
            assert name in text, (path, name)
        for flag in node.flags():
            assert (flag if shell != "fish" else flag.lstrip("-")) in text, (path, flag)


def test_tree_covers_every_noun_and_verb() -> None:
    assert {name for name, _ in NODES["herdr"].subcommands} == set(NOUNS)
    assert "herdr pane split" in NODES
    split = NODES["herdr pane split"]
    direction = next(o for o in split.options if "--direction" in o.flags)
    assert direction.takes_value and direction.choices == ("right", "down")
    assert "--session" in split.value_flags()
    assert "--focus" in split.flags() and "--focus" not in split.value_flags()


def test_unknown_shell_is_a_usage_error(herdr_env: HerdrEnv) -> None:
    result = herdr_env.cli("completion", "powershell")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr
    assert result.stdout == ""
