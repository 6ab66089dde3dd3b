"""Who may talk to the web view: loopback binds, addresses, Origin, token comparison."""

from __future__ import annotations

import pytest

from herdr.web import auth
from herdr.web.host import WebOptions, exposure_problem

LOOPBACK = [
    ("v4", "127.0.0.1", True),
    ("v4-other", "127.1.2.3", True),
    ("v6", "::1", True),
    ("v6-bracketed", "[::1]", True),
    ("name", "localhost", True),
    ("all-v4", "0.0.0.0", False),
    ("all-v6", "::", False),
    ("lan", "192.168.1.5", False),
    ("a-name", "example.com", False),
    ("lookalike", "127.0.0.1.example.com", False),
]


@pytest.mark.parametrize(
    ("bind", "loopback"), [c[1:] for c in LOOPBACK], ids=[c[0] for c in LOOPBACK]
)
def test_is_loopback(bind: str, loopback: bool) -> None:
    assert auth.is_loopback(bind) is loopback
    assert (exposure_problem(WebOptions(bind=bind)) is None) is loopback
    assert exposure_problem(WebOptions(bind=bind, exposed=True)) is None


ADDRESSES = [
    ("v4", "10.0.0.1", True),
    ("v6", "fe80::1", True),
    ("localhost", "LOCALHOST", True),
    ("name", "example.com", False),
    ("empty", "", False),
    ("port-glued", "127.0.0.1:80", False),
]


@pytest.mark.parametrize(("bind", "ok"), [c[1:] for c in ADDRESSES], ids=[c[0] for c in ADDRESSES])
def test_is_address_never_resolves_names(bind: str, ok: bool) -> None:
    assert auth.is_address(bind) is ok


ORIGINS = [
    ("same", "http://127.0.0.1:8375", "127.0.0.1:8375", True),
    ("same-https-proxy", "https://h.example:443", "h.example:443", True),
    ("other-port", "http://127.0.0.1:9999", "127.0.0.1:8375", False),
    ("other-host", "http://evil.example", "127.0.0.1:8375", False),
    ("suffix-trick", "http://127.0.0.1:8375.evil", "127.0.0.1:8375", False),
    ("null", "null", "127.0.0.1:8375", False),
    ("missing-origin", None, "127.0.0.1:8375", False),
    ("missing-host", "http://127.0.0.1:8375", None, False),
]


@pytest.mark.parametrize(
    ("origin", "host", "allowed"), [c[1:] for c in ORIGINS], ids=[c[0] for c in ORIGINS]
)
def test_origin_allowed(origin: str | None, host: str | None, allowed: bool) -> None:
    assert auth.origin_allowed(origin, host) is allowed


def test_tokens_and_cookie_names() -> None:
    token = auth.new_token()
    assert len(token) >= 43 and token != auth.new_token()
    assert auth.token_matches(token, token)
    for wrong in (None, "", token[:-1], token + "x", "é" * 43):
        assert not auth.token_matches(wrong, token)
    assert auth.cookie_name(token).startswith(auth.COOKIE_PREFIX)
    assert auth.cookie_name(token) != auth.cookie_name(auth.new_token())
    assert token not in auth.cookie_name(token)


URL_HOSTS = [
    ("v4", "127.0.0.1", "127.0.0.1"),
    ("v6", "::1", "[::1]"),
    ("name", "localhost", "localhost"),
]


@pytest.mark.parametrize(
    ("bind", "shown"), [c[1:] for c in URL_HOSTS], ids=[c[0] for c in URL_HOSTS]
)
def test_url_host(bind: str, shown: str) -> None:
    assert auth.url_host(bind) == shown
