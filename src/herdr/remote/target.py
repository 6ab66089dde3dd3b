"""SSH targets as typed (``alias``, ``user@host`` or ``ssh://user@host:port``), checked.

Pure: a target becomes the ``ssh`` arguments that name it. Anything that could be read
by ``ssh`` as an option, or that holds spaces or control characters, is refused so a
saved machine can never smuggle options onto ssh's command line.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEME = "ssh://"
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:%[]")
_USER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_$")
MAX_TARGET = 255


@dataclass(frozen=True)
class Target:
    """Where ssh goes: ``host`` (an alias or address), optional ``user`` and ``port``."""

    host: str
    user: str | None = None
    port: int | None = None

    def ssh_args(self) -> list[str]:
        """``[-p PORT] [-l USER] HOST`` (the host last, after every option)."""
        args: list[str] = []
        if self.port is not None:
            args += ["-p", str(self.port)]
        if self.user is not None:
            args += ["-l", self.user]
        return [*args, self.host]

    def label(self) -> str:
        user = f"{self.user}@" if self.user else ""
        port = f":{self.port}" if self.port is not None else ""
        return f"{user}{self.host}{port}"


def parse_target(text: str) -> Target:
    """The :class:`Target` ``text`` names, else ``ValueError`` saying what is wrong."""
    if not text or len(text) > MAX_TARGET:
        raise ValueError("an ssh target is 1 to 255 characters")
    rest = text
    port: int | None = None
    if rest.startswith(SCHEME):
        rest = rest[len(SCHEME) :].rstrip("/")
        host_part = rest.rpartition("@")[2]
        if host_part.startswith("["):  # ssh://[::1]:22
            close = host_part.find("]")
            tail = host_part[close + 1 :] if close >= 0 else ""
        else:
            tail = host_part[host_part.rfind(":") :] if ":" in host_part else ""
        if tail.startswith(":"):
            port = _port(tail[1:])
            rest = rest[: len(rest) - len(tail)]
    user, at, host = rest.rpartition("@")
    if not at:
        user, host = "", rest
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or host.startswith("-") or not set(host) <= _HOST_CHARS:
        raise ValueError(f"not a valid ssh host: {host!r}")
    if at and (not user or user.startswith("-") or not set(user) <= _USER_CHARS):
        raise ValueError(f"not a valid ssh user: {user!r}")
    return Target(host, user or None, port)


def _port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ValueError(f"not a valid ssh port: {text!r}")
    return int(text)
