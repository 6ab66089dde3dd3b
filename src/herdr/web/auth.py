"""Who may talk to the web view (PURE): the token, loopback binds, the Origin rule.

The token is printed once in the URL and then exchanged for a cookie; every later
request is compared in constant time. The websocket also checks ``Origin``, so a page
of another site that somehow got the cookie sent along still cannot open it.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets

COOKIE_PREFIX = "herdr_web_"
TOKEN_PARAM = "token"
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def new_token() -> str:
    return secrets.token_urlsafe(32)


def cookie_name(token: str) -> str:
    """The cookie's name for one view: cookies ignore ports, so views of two sessions on
    one host would otherwise overwrite each other's cookie."""
    return COOKIE_PREFIX + hashlib.sha256(token.encode("ascii")).hexdigest()[:12]


def token_matches(given: str | None, token: str) -> bool:
    """Constant-time comparison; a missing or non-ASCII value never matches."""
    if not given or not given.isascii():
        return False
    return hmac.compare_digest(given.encode("ascii"), token.encode("ascii"))


def is_loopback(bind: str) -> bool:
    """Whether ``bind`` only listens on this machine (``127.0.0.0/8``, ``::1``, localhost)."""
    if bind.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(bind.strip("[]")).is_loopback
    except ValueError:
        return False


def is_address(bind: str) -> bool:
    """Whether ``bind`` is an IP literal or localhost: names are never resolved (a lookup
    could hang the server's loop, and a name may resolve somewhere unexpected)."""
    if bind.lower() in LOOPBACK_NAMES:
        return True
    try:
        ipaddress.ip_address(bind.strip("[]"))
    except ValueError:
        return False
    return True


def url_host(bind: str) -> str:
    """The host part of a URL for ``bind`` (IPv6 in brackets)."""
    if ":" in bind and not bind.startswith("["):
        return f"[{bind}]"
    return bind


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """A websocket may only be opened by our own page: ``Origin`` is ``http(s)://Host``."""
    if not origin or not host:
        return False
    return origin in (f"http://{host}", f"https://{host}")
