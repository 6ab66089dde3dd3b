"""``herdr completion bash|zsh|fish``: a completion script generated from our argparse tree.

Nothing is written by hand per command: the whole parser is built, walked into a table
(per command path: its sub-commands, its options, which options take a value and that
value's choices, its positionals' choices), and the table is rendered for each shell
with one small walker that finds the command path under the cursor. A new verb or flag
is therefore completed as soon as it exists.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass, field

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from herdr.cli.main import Nouns

SHELLS = ("bash", "zsh", "fish")


@dataclass
class Option:
    flags: tuple[str, ...]
    takes_value: bool
    choices: tuple[str, ...]
    help: str


@dataclass
class Node:
    """One command path (``herdr``, ``herdr pane``, ``herdr pane split``) and its words."""

    path: str
    subcommands: list[tuple[str, str]] = field(default_factory=list)
    options: list[Option] = field(default_factory=list)
    positional_choices: list[str] = field(default_factory=list)

    def flags(self) -> list[str]:
        return [flag for option in self.options for flag in option.flags]

    def value_flags(self) -> list[str]:
        return [flag for option in self.options if option.takes_value for flag in option.flags]


def _help(action: argparse.Action) -> str:
    text = action.help if isinstance(action.help, str) else ""
    return "" if text == argparse.SUPPRESS else text.replace("%(default)s", "").strip()


def tree(parser: argparse.ArgumentParser, path: str = "herdr") -> list[Node]:
    """Every command path under ``parser``, depth first, with its completable words."""
    node = Node(path)
    children: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: _help(choice) for choice in action._choices_actions}
            for name, sub in action.choices.items():
                node.subcommands.append((name, helps.get(name, "")))
                children.append((name, sub))
        elif action.option_strings:
            if action.help == argparse.SUPPRESS:
                continue
            choices = tuple(str(c) for c in action.choices or ())
            node.options.append(
                Option(tuple(action.option_strings), action.nargs != 0, choices, _help(action))
            )
        elif action.choices:
            node.positional_choices.extend(str(c) for c in action.choices)
    nodes = [node]
    for name, sub in children:
        nodes.extend(tree(sub, f"{path} {name}"))
    return nodes


def _entries(nodes: list[Node]) -> list[tuple[str, str, str]]:
    """(array, key, words) rows of the tables both bash and zsh walk."""
    rows: list[tuple[str, str, str]] = []
    for node in nodes:
        rows.append(("_herdr_subs", node.path, " ".join(n for n, _ in node.subcommands)))
        rows.append(("_herdr_opts", node.path, " ".join(node.flags())))
        rows.append(("_herdr_takes", node.path, " ".join(node.value_flags())))
        rows.append(("_herdr_pos", node.path, " ".join(node.positional_choices)))
        for option in node.options:
            for flag in option.flags if option.choices else ():
                rows.append(("_herdr_vals", f"{node.path} {flag}", " ".join(option.choices)))
    return rows


TABLES = "_herdr_subs _herdr_opts _herdr_takes _herdr_vals _herdr_pos"


def _bash_tables(nodes: list[Node]) -> list[str]:
    lines = [f"declare -gA {TABLES}"]
    for array, key, words in _entries(nodes):
        lines.append(f"{array}[{shlex.quote(key)}]={shlex.quote(words)}")
    return lines


def _zsh_tables(nodes: list[Node]) -> list[str]:
    """zsh keeps quotes inside ``a['k']=v`` subscripts, so pairs are added as words."""
    lines = [f"typeset -gA {TABLES}"]
    for array, key, words in _entries(nodes):
        lines.append(f"{array}+=({shlex.quote(key)} {shlex.quote(words)})")
    return lines


BASH_WALKER = r"""
_herdr() {
    local cur="${COMP_WORDS[COMP_CWORD]}" node=herdr word skip=0 i
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        if ((skip)); then skip=0; continue; fi
        if [[ $word == -* ]]; then
            [[ " ${_herdr_takes[$node]} " == *" $word "* ]] && skip=1
            continue
        fi
        [[ -n ${_herdr_opts["$node $word"]+set} ]] && node="$node $word"
    done
    if ((skip)); then
        local key="$node ${COMP_WORDS[COMP_CWORD-1]}"
        if [[ -n ${_herdr_vals[$key]+set} ]]; then
            mapfile -t COMPREPLY < <(compgen -W "${_herdr_vals[$key]}" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
        return 0
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "${_herdr_opts[$node]}" -- "$cur")
    else
        mapfile -t COMPREPLY < <(compgen -W "${_herdr_subs[$node]} ${_herdr_pos[$node]}" -- "$cur")
    fi
    return 0
}
complete -F _herdr herdr
"""

ZSH_WALKER = r"""
_herdr() {
    local node=herdr word cur=${words[CURRENT]} key
    integer skip=0 i
    for (( i = 2; i < CURRENT; i++ )); do
        word=${words[i]}
        if (( skip )); then skip=0; continue; fi
        if [[ $word == -* ]]; then
            [[ " ${_herdr_takes[$node]} " == *" $word "* ]] && skip=1
            continue
        fi
        (( ${+_herdr_opts[$node $word]} )) && node="$node $word"
    done
    if (( skip )); then
        key="$node ${words[CURRENT-1]}"
        if (( ${+_herdr_vals[$key]} )); then
            compadd -- ${=_herdr_vals[$key]}
        else
            _files
        fi
        return
    fi
    if [[ $cur == -* ]]; then
        compadd -- ${=_herdr_opts[$node]}
    else
        compadd -- ${=_herdr_subs[$node]} ${=_herdr_pos[$node]}
    fi
}
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
    _herdr "$@"
else
    compdef _herdr herdr
fi
"""


def render_bash(nodes: list[Node]) -> str:
    head = "# bash completion for herdr (generated by `herdr completion bash`)\n"
    return head + "\n".join(_bash_tables(nodes)) + "\n" + BASH_WALKER.lstrip("\n")


def render_zsh(nodes: list[Node]) -> str:
    head = "#compdef herdr\n# zsh completion for herdr (generated by `herdr completion zsh`)\n"
    return head + "\n".join(_zsh_tables(nodes)) + "\n" + ZSH_WALKER.lstrip("\n")


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def render_fish(nodes: list[Node]) -> str:
    out = [
        "# fish completion for herdr (generated by `herdr completion fish`)",
        "set -g __herdr_nodes " + " ".join(_fish_quote(n.path) for n in nodes),
        "function __herdr_takes",
        "    switch $argv[1]",
    ]
    for node in nodes:
        if node.value_flags():
            out.append(f"        case {_fish_quote(node.path)}")
            out.append("            printf '%s\\n' " + " ".join(node.value_flags()))
    out += [
        "    end",
        "end",
        "function __herdr_node",
        "    set -l tokens (commandline -opc)",
        "    set -e tokens[1]",
        "    set -l node herdr",
        "    set -l skip 0",
        "    for word in $tokens",
        "        if test $skip = 1",
        "            set skip 0",
        "            continue",
        "        end",
        "        if string match -q -- '-*' $word",
        "            contains -- $word (__herdr_takes $node); and set skip 1",
        "            continue",
        "        end",
        '        contains -- "$node $word" $__herdr_nodes; and set node "$node $word"',
        "    end",
        "    echo $node",
        "end",
        "complete -c herdr -f",
    ]
    for node in nodes:
        test = f"test (__herdr_node) = {shlex.quote(node.path)}"
        when = f"complete -c herdr -n {_fish_quote(test)}"
        for name, helptext in node.subcommands:
            out.append(f"{when} -a {_fish_quote(name)} -d {_fish_quote(helptext)}")
        if node.positional_choices:
            out.append(f"{when} -a {_fish_quote(' '.join(node.positional_choices))}")
        for option in node.options:
            spec = []
            for flag in option.flags:
                spec.append(f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}")
            if option.takes_value:
                spec.append("-x" if option.choices else "-r -F")
            if option.choices:
                spec.append(f"-a {_fish_quote(' '.join(option.choices))}")
            out.append(f"{when} {' '.join(spec)} -d {_fish_quote(option.help)}")
    return "\n".join(out) + "\n"


RENDER = {"bash": render_bash, "zsh": render_zsh, "fish": render_fish}


def script(shell: str) -> str:
    """The completion script for ``shell``, from the whole (fully built) parser."""
    from herdr.cli.main import build_parser

    return RENDER[shell](tree(build_parser(None)))


def add_completion(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, _lazy

    noun = nouns.add_parser(
        "completion",
        help=NOUNS["completion"][0],
        description=(
            "Print a completion script. bash: `source <(herdr completion bash)`; "
            "zsh: save it as _herdr on $fpath; fish: save it as "
            "~/.config/fish/completions/herdr.fish."
        ),
    )
    noun.add_argument("shell", choices=SHELLS, help="the shell to complete for")
    noun.set_defaults(handler=_lazy("herdr.cli.completion", "run_completion"))


def run_completion(args: argparse.Namespace) -> int:
    sys.stdout.write(script(args.shell))
    return 0
