"""Client frame cost: compose + row-diff render for a 200x50 terminal with 4 panes.

Run: ``.venv/bin/python bench/render_bench.py [--frames N]``. Each frame one pane
(round-robin) scrolls by a line of styled agent-like output, as when one agent streams
while three sit still; the sidebar, tab bar and borders are unchanged. Prints median,
min and p90 µs per frame for compose, render and both, and the bytes written.

Tails include scheduler preemption on a busy host (4 ms time slices): quote the
median. A tmux figure cannot be measured in-process (tmux composes in its server, in
C); compare with the 16.7 ms budget of a 60 Hz frame and the 7-15 µs python-stack.md
measured for the diff-and-write step alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from herdr.client.compose import (
    AgentStatus,
    AgentView,
    PaneView,
    TabView,
    ViewState,
    WorkspaceView,
    compose,
    pane_area,
)
from herdr.client.render import render
from herdr.runtime import layout as L

COLS, ROWS = 200, 50
STATUSES: tuple[AgentStatus, ...] = ("working", "blocked", "idle", "unknown")


def styled_line(n: int) -> str:
    """A row as the emulator's formatter emits it: SGR runs, box drawing, wide chars."""
    kind = n % 5
    if kind == 0:
        return f"\x1b[0m\x1b[1m\x1b[38;5;2m⏺\x1b[0m Read(src/mod_{n}.py) — {n * 13} lines\x1b[0m"
    if kind == 1:
        return f"\x1b[0m  \x1b[38;5;8m⎿\x1b[0m  def fn_{n}(argument: int) -> str:  # 日本語\x1b[0m"
    if kind == 2:
        return (
            "\x1b[0m" + ("The change keeps the public API stable and adds a test. " * 3) + "\x1b[0m"
        )
    if kind == 3:
        return f"\x1b[0m\x1b[38;2;137;180;250m{n:6d}\x1b[0m │ result = compute(values[{n}])\x1b[0m"
    return ""


def build() -> tuple[ViewState, list[list[str]]]:
    base = ViewState(
        COLS,
        ROWS,
        workspaces=tuple(
            WorkspaceView(f"w{i}", f"project-{i}", STATUSES[i % 3], i % 4) for i in range(1, 9)
        ),
        active_workspace_id="w1",
        tabs=(TabView("w1:t1", "main", "working"), TabView("w1:t2", "logs", "done", False)),
        active_tab_id="w1:t1",
        focused_pane_id="w1:p1",
    )
    area = pane_area(base)
    tree: L.Node[str] = L.Split(
        "right",
        0.5,
        L.Split("down", 0.5, L.Leaf("w1:p1"), L.Leaf("w1:p2")),
        L.Split("down", 0.5, L.Leaf("w1:p3"), L.Leaf("w1:p4")),
    )
    geometry = L.compute(tree, L.Rect(0, 0, area.width, area.height))
    panes = []
    buffers: list[list[str]] = []
    agents = []
    for i, (pid, rect) in enumerate(geometry.panes.items()):
        lines = [styled_line(n + 100 * i) for n in range(rect.height)]
        buffers.append(lines)
        agent = ("claude", "codex", "opencode", "")[i]
        status: AgentStatus = STATUSES[i]
        cursor = (3, rect.height - 1)
        panes.append(PaneView(pid, rect, tuple(lines), "~/src/herdr", agent, status, cursor=cursor))
        if agent:
            agents.append(AgentView(pid, "w1:t1", agent, status))
    view = dataclasses.replace(base, panes=tuple(panes), agents=tuple(agents))
    return view, buffers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=3000)
    args = parser.parse_args()

    view, buffers = build()
    prev = compose(view)
    counter = 10_000
    t_compose: list[float] = []
    t_render: list[float] = []
    sizes: list[int] = []
    for frame_no in range(args.frames):
        index = frame_no % len(buffers)
        lines = buffers[index]
        lines.pop(0)
        lines.append(styled_line(counter))
        counter += 1
        panes = list(view.panes)
        panes[index] = dataclasses.replace(panes[index], rows=tuple(lines))
        view = dataclasses.replace(view, panes=tuple(panes))
        t0 = time.perf_counter_ns()
        frame = compose(view)
        t1 = time.perf_counter_ns()
        out = render(prev, frame)
        t2 = time.perf_counter_ns()
        prev = frame
        t_compose.append((t1 - t0) / 1000)
        t_render.append((t2 - t1) / 1000)
        sizes.append(len(out))

    def stats(samples: list[float]) -> str:
        ordered = sorted(samples)
        p90 = ordered[int(len(ordered) * 0.90)]
        return (
            f"median {statistics.median(samples):7.1f} µs   min {ordered[0]:7.1f} µs"
            f"   p90 {p90:7.1f} µs"
        )

    total = [a + b for a, b in zip(t_compose, t_render, strict=True)]
    print(f"{COLS}x{ROWS}, 4 panes, one pane scrolling per frame, {args.frames} frames")
    print(f"  compose         {stats(t_compose)}")
    print(f"  render (diff)   {stats(t_render)}")
    print(f"  compose+render  {stats(total)}")
    print(f"  bytes/frame     median {statistics.median(sizes):.0f}")
    full_t0 = time.perf_counter_ns()
    full = render(None, prev)
    full_us = (time.perf_counter_ns() - full_t0) / 1000
    print(f"  full redraw     {full_us:.1f} µs, {len(full)} bytes")


if __name__ == "__main__":
    main()
