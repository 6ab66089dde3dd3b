"""The CLI fast path (``herdr.cli.fast``) sends exactly what the argparse path sends."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from herdr.cli import fast, main, transport
from herdr.cli.main import build_parser
from herdr_testing import ServerHandle, wait_until

SAMPLES = [
    ["pane", "list"],
    ["pane", "list", "--workspace", "w1"],
    ["pane", "list", "--workspace", "w1", "--workspace", "w2"],
    ["--session", "work", "pane", "list"],
    ["pane", "list", "--session", "work"],
    ["--session", "a", "pane", "list", "--session", "b"],
    ["pane", "get", "w1:p1"],
    ["pane", "get", "w1:p1", "--session", "default"],
    ["workspace", "list"],
    ["workspace", "get", "w1"],
    ["tab", "list", "--workspace", ""],
    ["tab", "get", "w1:t1"],
    ["agent", "list"],
    ["agent", "get", "claude"],
]

NOT_SIMPLE = [
    [],
    ["pane"],
    ["pane", "list", "--help"],
    ["pane", "list", "-h"],
    ["pane", "list", "--workspace=w1"],
    ["pane", "list", "--work", "w1"],
    ["pane", "list", "--workspace"],
    ["pane", "list", "--workspace", "--session"],
    ["pane", "list", "extra"],
    ["pane", "get"],
    ["pane", "get", "a", "b"],
    ["pane", "get", "--", "w1:p1"],
    ["pane", "read", "w1:p1"],
    ["--session", "bad/name", "pane", "list"],
    ["-V"],
    ["--default-config"],
]


def argparse_request(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """What the argparse path would send for ``argv`` (the socket is never touched)."""
    sent: list[tuple[Any, ...]] = []

    def capture(args: Any, method: str, params: dict[str, Any], **_: Any) -> int:
        rid = transport.request_id(method, args)
        sent.append((method, params, getattr(args, "session", None), rid))
        return 0

    monkeypatch.setattr(transport, "call_and_print", capture)
    args = build_parser(argv).parse_args(argv)
    assert args.handler(args) == 0
    assert len(sent) == 1
    return sent[0]


@pytest.mark.parametrize("argv", SAMPLES, ids=" ".join)
def test_fast_path_matches_argparse(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = fast.parse(argv)
    assert parsed is not None
    method, params, session, command = parsed
    rid = transport.request_id(method, fast.Args(session, *command))
    assert (method, params, session, rid) == argparse_request(argv, monkeypatch)


def test_every_simple_verb_is_covered() -> None:
    covered = {(a[a.index(n)], a[a.index(n) + 1]) for a in SAMPLES for n in a if n in main.NOUNS}
    assert covered == set(fast.SIMPLE)


@pytest.mark.parametrize("argv", NOT_SIMPLE, ids=lambda a: " ".join(a) or "(none)")
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert fast.parse(argv) is None


def test_fast_path_imports_no_argparse_json_or_re(herdr_server: ServerHandle) -> None:
    code = (
        "import sys\n"
        "from herdr.cli.main import main\n"
        "code = main(['pane', 'list'])\n"
        "print(code, sorted({'argparse', 'json', 're', 'typing', 'gettext'} & set(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=herdr_server.env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.splitlines()
    assert out[0].startswith('{"id":"cli:pane:list","result":{"type":"pane_list"')
    assert out[-1] == "0 []"


def test_fast_and_argparse_paths_print_the_same(herdr_server: ServerHandle) -> None:
    """Same stdout, stderr and exit code, on success and on a server error."""
    herdr_server.cli("workspace", "create", "--label", "fast")

    def sampled() -> bool:
        """The once-a-second cwd sampler has filled every record (else the two runs
        can differ by a field that arrived between them)."""
        panes = json.loads(herdr_server.cli("pane", "list").stdout)["result"]["panes"]
        return bool(panes) and all("foreground_cwd" in p for p in panes)

    wait_until(sampled, 30, message="the cwd sampler never ran")
    for argv in (["pane", "list"], ["pane", "get", "w9:p9"]):
        fast_run = herdr_server.cli(*argv)
        # an abbreviated ``--sess default`` is the same session but not a "simple" line
        slow_run = herdr_server.cli(*argv, "--sess", "default")
        assert fast.parse(argv) is not None
        assert fast.parse([*argv, "--sess", "default"]) is None
        assert (fast_run.returncode, fast_run.stdout, fast_run.stderr) == (
            slow_run.returncode,
            slow_run.stdout,
            slow_run.stderr,
        )


def test_bare_herdr_builds_no_parser(herdr_server: ServerHandle) -> None:
    """``herdr`` alone (attach) skips argparse; without a terminal it says so, exit 1."""
    code = (
        "import sys\n"
        "from herdr.cli.main import main\n"
        "code = main([])\n"
        "print(code, 'argparse' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=herdr_server.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.stdout.splitlines()[-1] == "1 False"
    assert "herdr: the TUI needs a terminal on stdin and stdout" in done.stderr
