"""Targets, saved-machine files and ssh command lines: the pure parts of remote."""

from __future__ import annotations

import pytest

from herdr.remote import ssh_command
from herdr.remote.machines import Machines, is_valid_name, parse, render
from herdr.remote.target import Target, parse_target


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("build", Target("build")),
        ("me@build.lan", Target("build.lan", "me")),
        ("ssh://127.0.0.1:2222", Target("127.0.0.1", None, 2222)),
        ("ssh://me@127.0.0.1:2222", Target("127.0.0.1", "me", 2222)),
        ("ssh://me@host", Target("host", "me")),
        ("ssh://[::1]:22", Target("::1", None, 22)),
    ],
    ids=["alias", "user-host", "url-port", "url-user-port", "url-no-port", "ipv6"],
)
def test_targets_parse(text: str, want: Target) -> None:
    assert parse_target(text) == want


@pytest.mark.parametrize(
    "text",
    [
        *("", "-oProxyCommand=x", "me@-oProxyCommand=x", "ssh://h:0", "ssh://h:99999"),
        *("h o", "a\nb", "ssh://h:x", "@host", "-l@h", "h;rm", "x" * 300),
    ],
    ids=[
        "empty",
        "option",
        "option-host",
        "port-0",
        "port-big",
        "space",
        "newline",
        "port-word",
        "empty-user",
        "option-user",
        "semicolon",
        "too-long",
    ],
)
def test_bad_targets_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_target(text)


def test_target_args_put_the_host_last() -> None:
    assert parse_target("ssh://me@h:2200").ssh_args() == ["-p", "2200", "-l", "me", "h"]


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        *(("build", True), ("a.b-c_9", True), ("", False), ("-x", False)),
        *(("a b", False), ("x" * 65, False), ("é", False)),
    ],
    ids=["plain", "punct", "empty", "dash", "space", "long", "non-ascii"],
)
def test_machine_names(name: str, valid: bool) -> None:
    assert is_valid_name(name) is valid


def test_machines_file_round_trips() -> None:
    machines = Machines({"b": "ssh://me@h:22", "a": "alias"}, default="b")
    assert parse(render(machines)) == machines


@pytest.mark.parametrize(
    "text",
    [
        "machines = 3",
        '[machines.x]\ntarget = "-oProxyCommand=x"',
        '[machines."bad name"]\ntarget = "h"',
        'default = "nope"\n[machines.a]\ntarget = "h"',
        "not toml [",
    ],
    ids=["not-table", "option-target", "bad-name", "unknown-default", "syntax"],
)
def test_bad_machines_files_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse(text)


def test_ssh_argv_shares_a_control_master() -> None:
    argv = ssh_command.ssh_argv(Target("h", "me", 22), "cmd", config="/c", control_dir="/d")
    assert argv == [
        "ssh",
        "-F",
        "/c",
        "-o",
        "ControlMaster=auto",
        "-o",
        "ControlPath=/d/%C",
        "-o",
        f"ControlPersist={ssh_command.CONTROL_PERSIST_S}",
        "-T",
        "-p",
        "22",
        "-l",
        "me",
        "h",
        "cmd",
    ]


def test_remote_command_quotes_words() -> None:
    cmd = ssh_command.remote_herdr(["api", "proxy", "--session", "a b"], {})
    assert cmd.startswith("sh -c ") and cmd.endswith("herdr api proxy --session 'a b'")
    over = ssh_command.remote_herdr(["api", "proxy"], {"HERDR_REMOTE_HERDR": "/opt/herdr"})
    assert over == "/opt/herdr api proxy"


@pytest.mark.parametrize(
    ("stdout", "want"),
    [
        (b'{"socket_path":"/r/herdr.sock","server_protocol":22,"protocol":22}\n', "/r/herdr.sock"),
        (b'motd\n{"socket_path":"/r/h.sock","server_protocol":22}\n', "/r/h.sock"),
        (b'{"socket_path":"/r/herdr.sock","server_protocol":null,"protocol":22}\n', None),
        (b'{"socket_path":"/r/herdr.sock","server_protocol":21}\n', None),
        (b'{"socket_path":"relative.sock","server_protocol":22}\n', None),
        (b'{"socket_path":"/a:b/herdr.sock","server_protocol":22}\n', None),
        (b'{"socket_path":"/a b/herdr.sock","server_protocol":22}\n', None),
        (b'{"socket_path":"/' + b"x" * 120 + b'","server_protocol":22}\n', None),
        (b"usage: herdr api ...\n", None),
        (b"", None),
    ],
    ids=[
        "live",
        "motd-first",
        "no-server",
        "other-protocol",
        "relative",
        "colon",
        "blank",
        "too-long",
        "old-herdr",
        "nothing",
    ],
)
def test_forwardable_remote_paths(stdout: bytes, want: str | None) -> None:
    from herdr.remote.forward import remote_path_from

    assert remote_path_from(stdout) == want


def test_route_keys_follow_what_names_the_route() -> None:
    from herdr.remote.forward import route_key

    env = {"XDG_CONFIG_HOME": "/nonexistent-herdr-test"}
    base = route_key("box", None, env)
    assert base == route_key("box", None, dict(env))
    assert base != route_key("box", "s2", env)
    assert base != route_key("other", None, env)
    assert base != route_key("box", None, {**env, "HERDR_SSH_CONFIG": "/x"})
