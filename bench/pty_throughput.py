"""PTY → emulator throughput, side by side with tmux (the anchor), plus RSS per pane.

The same files are pushed through both pipelines in one run:

* herdr: a child ``cat``s the file into our PTY; the asyncio reader (``AsyncPty``,
  ``add_reader``) feeds an ``Emulator`` until a sentinel printed after the file
  has been parsed.
* tmux: ``tmux -L <private> new-session -d -x COLS -y ROWS "cat FILE; tmux wait-for
  -S done"`` on a private server (``TMUX_TMPDIR`` in a temp dir,
  ``history-limit 10000``), timed until ``wait-for done`` returns.

Both are timed from spawn to done; the same run with an empty file is subtracted
(start-up cost). MB = 10^6 bytes of the file (the PTY's ``onlcr`` adds a few %).

Usage: ``python bench/pty_throughput.py [--size-mb 8] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from herdr.terminal.emulator import Emulator
from herdr.terminal.pty import AsyncPty

SENTINEL = b"__HERDR_BENCH_DONE__"
SIZES = ((80, 24), (200, 50))
STREAMS = ("plain", "lscolor", "tui")

# -- stream generation ------------------------------------------------------------


def gen_plain(target: int, rng: random.Random, _cols: int, _rows: int) -> bytes:
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 10)))
        for _ in range(2000)
    ]
    out = bytearray()
    while len(out) < target:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(3, 14)))
        out += line.encode() + b"\r\n"
    return bytes(out[:target])


def gen_lscolor(target: int, _rng: random.Random, _cols: int, _rows: int) -> bytes:
    listing = subprocess.run(
        ["ls", "--color=always", "-la", "/usr/lib", "/usr/bin"],
        capture_output=True,
        check=False,
        env={**os.environ, "LS_COLORS": os.environ.get("LS_COLORS", "")},
    ).stdout.replace(b"\n", b"\r\n")
    if not listing:
        listing = b"\x1b[01;34mdir\x1b[0m  \x1b[01;32mexe\x1b[0m  file\r\n"
    return (listing * (target // len(listing) + 1))[:target]


SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def gen_tui(target: int, rng: random.Random, cols: int, rows: int) -> bytes:
    """Agent-TUI redraw frames: ?2026 sync, titles, CUP+EL per row, colours, wide chars."""
    out = bytearray()
    frame = 0
    inner = cols - 2
    while len(out) < target:
        spin = SPINNER[frame % len(SPINNER)]
        parts = [f"\x1b[?2026h\x1b]0;{spin} Claude Code\x07\x1b[?25l"]
        for y in range(1, rows + 1):
            parts.append(f"\x1b[{y};1H\x1b[2K")
            kind = (y + frame) % 6
            if y in (1, rows - 2):
                parts.append("\x1b[38;5;245m╭" + "─" * inner + "╮\x1b[0m")
            elif y in (2, rows - 1):
                parts.append("\x1b[38;5;245m╰" + "─" * inner + "╯\x1b[0m")
            elif kind == 0:
                text = f" {spin} Thinking… ({frame % 97}s · ↑ {rng.randint(1, 9999)} tokens)"
                parts.append(f"\x1b[38;2;215;119;87m{text[:inner]}\x1b[0m")
            elif kind == 1:
                text = "  ❯ 日本語のテキスト 🚀 résumé — " * 4
                parts.append(f"\x1b[1;38;5;{16 + y % 200}m{text[: inner // 2]}\x1b[0m")
            elif kind == 2:
                words = " ".join(
                    rng.choice(["def", "return", "self", "async", "await", "x"]) for _ in range(20)
                )
                parts.append(f"\x1b[32m+\x1b[0m \x1b[48;5;22m{words[: inner - 2]}\x1b[0m")
            elif kind == 3:
                parts.append(
                    f"\x1b[31m-\x1b[0m \x1b[48;2;60;20;20m{'old line ' * 12}"[: inner + 20]
                    + "\x1b[0m"
                )
            else:
                parts.append(f"\x1b[2m  ⎿  Read {rng.randint(1, 900)} lines\x1b[0m")
        parts.append(f"\x1b[{rows - 3};5H\x1b[?25h\x1b[?2026l")
        out += "".join(parts).encode()
        frame += 1
    return bytes(out)


GENERATORS: dict[str, Callable[[int, random.Random, int, int], bytes]] = {
    "plain": gen_plain,
    "lscolor": gen_lscolor,
    "tui": gen_tui,
}

# -- pipelines -----------------------------------------------------------------------


async def _herdr_once(path: Path, cols: int, rows: int) -> float:
    emulator = Emulator(cols, rows)
    done = asyncio.get_running_loop().create_future()
    tail = b""

    def on_data(data: bytes) -> None:
        nonlocal tail
        emulator.feed(data)
        found = SENTINEL in tail + data[: len(SENTINEL)] or SENTINEL in data
        if found and not done.done():
            done.set_result(None)
        tail = data[-len(SENTINEL) :]

    start = time.perf_counter()
    pty = AsyncPty.spawn(
        ["/bin/sh", "-c", f"cat '{path}'; printf '\\r\\n{SENTINEL.decode()}\\r\\n'; exec sleep 30"],
        on_data,
        cols=cols,
        rows=rows,
    )
    emulator.set_on_reply(pty.write)
    try:
        await asyncio.wait_for(done, 300)
        elapsed = time.perf_counter() - start
    finally:
        await pty.aclose(grace=0.5)
        emulator.close()
    return elapsed


def herdr_once(path: Path, cols: int, rows: int) -> float:
    return asyncio.run(_herdr_once(path, cols, rows))


class Tmux:
    """Private tmux servers (own TMUX_TMPDIR, a fresh -L name per run), always killed."""

    def __init__(self, tmpdir: Path) -> None:
        self.env = {**os.environ, "TMUX_TMPDIR": str(tmpdir)}
        self.env.pop("TMUX", None)
        self.conf = tmpdir / "tmux.conf"
        self.conf.write_text(
            "set -g history-limit 10000\nset -g status off\n"
            "set -g remain-on-exit on\nset -s exit-empty off\n"
        )
        self.names: list[str] = []

    def _tmux(self, name: str, *args: str, check: bool = True) -> None:
        subprocess.run(
            ["tmux", "-L", name, "-f", str(self.conf), *args],
            env=self.env,
            check=check,
            timeout=300,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=None if check else subprocess.DEVNULL,
        )

    def once(self, path: Path, cols: int, rows: int) -> float:
        name = f"hb{os.getpid()}-{len(self.names)}"
        self.names.append(name)
        command = f"cat '{path}'; tmux -L {name} wait-for -S done"
        start = time.perf_counter()
        try:
            self._tmux(name, "new-session", "-d", "-x", str(cols), "-y", str(rows), command)
            self._tmux(name, "wait-for", "done")
            return time.perf_counter() - start
        finally:
            self._tmux(name, "kill-server", check=False)

    def kill_all(self) -> None:
        for name in self.names:
            self._tmux(name, "kill-server", check=False)


def paired_medians(
    tmux: Tmux, path: Path, cols: int, rows: int, repeat: int
) -> tuple[float, float]:
    """Median herdr and tmux times, runs interleaved so load drift hits both alike."""
    herdr_times: list[float] = []
    tmux_times: list[float] = []
    for _ in range(repeat):
        herdr_times.append(herdr_once(path, cols, rows))
        tmux_times.append(tmux.once(path, cols, rows))
    return statistics.median(herdr_times), statistics.median(tmux_times)


# -- RSS per pane ----------------------------------------------------------------------


def _rss_kib() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def rss_child(panes: int, lines: int) -> None:
    """Runs in a subprocess: RSS delta of ``panes`` 200x50 emulators, full scrollback."""
    import gc

    warm = Emulator(200, 50)
    warm.feed(b"x\r\n" * 100)
    warm.ansi_rows()
    warm.close()
    gc.collect()
    rng = random.Random(7)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 "
    # Distinct full-width lines so no page can be shared or compressed away.
    body = b"".join(
        ("".join(rng.choice(alphabet) for _ in range(199)) + "\r\n").encode() for _ in range(512)
    )
    before = _rss_kib()
    keep = []
    for index in range(panes):
        e = Emulator(200, 50)
        for chunk in range(0, lines + 50, 512):
            e.feed(f"\x1b[3{(index + chunk) % 8}m".encode() + body)
        keep.append(e)
    after = _rss_kib()
    rows = [e.scrollback_rows for e in keep]
    print(f"{(after - before) / 1024 / panes:.2f} {min(rows)}")


def measure_rss(panes: int = 4, lines: int = 10_000) -> tuple[float, int]:
    out = subprocess.run(
        [sys.executable, __file__, "--rss-child", str(panes), str(lines)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), int(out[1])


# -- main ------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=8.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rss-child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        rss_child(*args.rss_child)
        return 0
    if shutil.which("tmux") is None:
        print("tmux not found", file=sys.stderr)
        return 1

    target = int(args.size_mb * 1_000_000)
    rng = random.Random(1234)
    version = subprocess.run(
        ["tmux", "-V"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"# pty_throughput: {args.size_mb:g} MB per stream, median of {args.repeat}, {version}")
    print(f"{'stream':8} {'size':>7} {'herdr MB/s':>11} {'tmux MB/s':>10} {'ratio':>7}")
    with tempfile.TemporaryDirectory(prefix="hb") as tmp:
        tmpdir = Path(tmp)
        tmux = Tmux(tmpdir)
        empty = tmpdir / "empty"
        empty.write_bytes(b"")
        try:
            for cols, rows in SIZES:
                base_h, base_t = paired_medians(tmux, empty, cols, rows, args.repeat)
                for stream in STREAMS:
                    path = tmpdir / f"{stream}-{cols}x{rows}"
                    path.write_bytes(GENERATORS[stream](target, rng, cols, rows))
                    size = path.stat().st_size
                    t_h, t_t = paired_medians(tmux, path, cols, rows, args.repeat)
                    mb_h = size / 1e6 / max(t_h - base_h, 1e-6)
                    mb_t = size / 1e6 / max(t_t - base_t, 1e-6)
                    ratio = mb_h / mb_t
                    print(f"{stream:8} {cols}x{rows:<4} {mb_h:11.1f} {mb_t:10.1f} {ratio:6.2f}x")
                    path.unlink()
                print(
                    f"# start-up subtracted at {cols}x{rows}: "
                    f"herdr {base_h * 1e3:.1f} ms, tmux {base_t * 1e3:.1f} ms"
                )
        finally:
            tmux.kill_all()

    per_pane, kept = measure_rss()
    print(f"RSS per 200x50 Emulator with full scrollback ({kept} rows kept): {per_pane:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
