"""``herdr config check [--json]``: report every problem of the config file.

The file is the one the server and the TUI read (``$HERDR_CONFIG_PATH``, else
``$XDG_CONFIG_HOME/herdr/config.toml``). Exit 0 when nothing is wrong (warnings, such as
unknown keys, still exit 0), 1 on any error (syntax, wrong type, bad binding) or when
the file cannot be read. The checking itself (:mod:`herdr.config.check`, which needs
``tomllib``, ``msgspec`` and the binding loader) is imported only when the verb runs.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    import argparse

    from herdr.cli.main import Nouns


def add_config(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, _lazy, add_verbs

    noun = nouns.add_parser("config", help=NOUNS["config"][0])
    verbs = add_verbs(noun, "herdr config")
    check = verbs.add_parser(
        "check",
        session=False,
        help="check config.toml: syntax, unknown keys, value types",
        description="Exit 0 when the config is valid (warnings allowed), 1 on any error.",
    )
    check.add_argument("--json", action="store_true", help="print JSON")
    check.set_defaults(handler=_lazy("herdr.cli.config_check", "run_check"))


def run_check(args: argparse.Namespace) -> int:
    import json

    from herdr.config.check import Problem, check, counts
    from herdr.config.paths import config_file

    path = config_file(os.environ)
    exists = True
    problems: list[Problem] = []
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        exists, text = False, ""
    except (OSError, UnicodeDecodeError) as exc:
        problems = [Problem("error", f"cannot read the config file: {exc}")]
    else:
        problems = check(text)
    errors, warnings = counts(problems)
    if args.json:
        doc = {
            "path": path,
            "exists": exists,
            "ok": errors == 0,
            "errors": errors,
            "warnings": warnings,
            "problems": [problem.as_dict() for problem in problems],
        }
        sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        return 1 if errors else 0
    for problem in problems:
        where = path
        if problem.line is not None:
            where += f":{problem.line}:{problem.column or 1}"
        sys.stdout.write(f"{where}: {problem.severity}: {problem.message}\n")
    if not exists:
        summary = f"no config file at {path}: the defaults apply"
    elif problems:
        summary = f"{path}: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
    else:
        summary = f"{path}: ok"
    sys.stdout.write(summary + "\n")
    return 1 if errors else 0


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")
