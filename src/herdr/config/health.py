"""Config health: the problems of ``config.toml`` as ``file:line:col`` lines, for
``herdr status``, the TUI's start-up banner, ``prefix+R`` and ``server reload-config``.

A broken config must not hide: the readers are lenient (the server keeps its settings,
the TUI its defaults), so every place that reads the file says what is wrong with it,
from one judgement (:func:`herdr.config.check.check`, also behind ``herdr config check``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from herdr.config.check import Problem, check, counts
from herdr.config.paths import config_file

Status = Literal["ok", "warning", "error", "missing"]


def where(path: str, problem: Problem) -> str:
    """``path:line:col`` (or just ``path`` when the problem has no place)."""
    if problem.line is None:
        return path
    return f"{path}:{problem.line}:{problem.column or 1}"


def format_problem(path: str, problem: Problem) -> str:
    """One line: ``path:line:col: error: message`` (did-you-mean is in the message)."""
    return f"{where(path, problem)}: {problem.severity}: {problem.message}"


@dataclass(frozen=True)
class ConfigHealth:
    path: str
    exists: bool
    problems: tuple[Problem, ...] = field(default_factory=tuple)

    @property
    def status(self) -> Status:
        errors, warnings = counts(list(self.problems))
        if errors:
            return "error"
        if warnings:
            return "warning"
        return "ok" if self.exists else "missing"

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == "error")

    def lines(self) -> list[str]:
        return [format_problem(self.path, p) for p in self.problems]

    def summary(self) -> str:
        """``ok``, ``no config file (defaults)``, or ``error: <first problem>`` (+ n more)."""
        status = self.status
        if status == "ok":
            return "ok"
        if status == "missing":
            return "no config file (defaults apply)"
        lines = self.lines()
        more = f" (+{len(lines) - 1} more; run `herdr config check`)" if len(lines) > 1 else ""
        return f"{status}: {lines[0]}{more}"

    def as_dict(self) -> dict[str, object]:
        errors, warnings = counts(list(self.problems))
        return {
            "status": self.status,
            "path": self.path,
            "exists": self.exists,
            "errors": errors,
            "warnings": warnings,
            "problems": self.lines(),
        }


def health_of_text(path: str, text: str | None) -> ConfigHealth:
    """Pure: ``text`` None means there is no file."""
    if text is None:
        return ConfigHealth(path, exists=False)
    return ConfigHealth(path, exists=True, problems=tuple(check(text)))


def read_health(env: Mapping[str, str] | None = None, path: str | None = None) -> ConfigHealth:
    """The health of the config file the server and the TUI read."""
    path = path or config_file(os.environ if env is None else env)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return health_of_text(path, None)
    except (OSError, UnicodeDecodeError) as exc:
        problem = Problem("error", f"cannot read the config file: {exc}")
        return ConfigHealth(path, exists=True, problems=(problem,))
    return health_of_text(path, text)
