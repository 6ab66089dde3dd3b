"""What one pushed screen of the web view costs: build time and bytes, cold and warm.

Run: ``.venv/bin/python bench/web_screen_frame.py [--cols C] [--rows R] [--runs N]``.

Feeds an emulator a screen of ``--runs`` runs per row in random 256-colour foregrounds
(a worst case: every run its own style), then times :func:`herdr.web.screen.frame` on
the emulator's own styled rows: the first frame (no row cached) and later frames of the
unchanged screen (rows cached, as while a pane redraws only a few rows). Prints the
styled rows' size next to the frame's JSON size. No server, no I/O beyond stdout.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from herdr.terminal.emulator import Emulator
from herdr.web import screen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cols", type=int, default=200)
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--runs", type=int, default=20, help="coloured runs per row")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(1)
    emulator = Emulator(args.cols, args.rows)
    try:
        width = max(1, args.cols // args.runs - 1)
        lines = []
        for _ in range(args.rows):
            cells = [
                f"\x1b[38;5;{rng.randrange(256)}m{'x' * width}\x1b[0m " for _ in range(args.runs)
            ]
            lines.append("".join(cells)[: args.cols * 12])
        emulator.feed("\r\n".join(lines).encode())
        rows = emulator.ansi_rows()
        screen._keyed_runs.cache_clear()
        start = time.perf_counter()
        shot = screen.frame(rows, cols=emulator.cols, cursor=emulator.cursor)
        cold_ms = (time.perf_counter() - start) * 1000
        warm = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            screen.frame(emulator.ansi_rows(), cols=emulator.cols, cursor=emulator.cursor)
            warm.append((time.perf_counter() - start) * 1000)
    finally:
        emulator.close()
    ansi_bytes = sum(len(row.encode()) for row in rows)
    frame_bytes = len(json.dumps(shot, separators=(",", ":")).encode())
    print(
        f"{args.cols}x{args.rows}, {args.runs} coloured runs a row ({len(shot['styles'])} styles): "
        f"styled rows {ansi_bytes} B, frame JSON {frame_bytes} B; "
        f"cold {cold_ms:.2f} ms, warm median {statistics.median(warm):.2f} ms "
        f"(incl. ansi_rows)"
    )


if __name__ == "__main__":
    main()
