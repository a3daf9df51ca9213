#!/usr/bin/env python3
"""Cold load as a user sees it (issue 8): kubesift starts in tmux on CORPUS and the pane is
polled until the header shows rows (the first partial batch), the whole table (`N of N
objects` without `loading`), and the graph (`linking…` gone). Times are from spawning the
process, so they include its start, tmux's refresh and the 10 ms polling (each poll spawns a process: polling faster takes a core from the loader); `kubesift bench`
measures the same loader with an off-screen UI and no terminal in between.

    python3 benches/load_to_screen.py /tmp/corpus [--runs 5] [--bin target/release/kubesift]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

WIDTH, HEIGHT = 200, 50


def tmux(socket, *args):
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True).stdout


def header(socket):
    lines = tmux(socket, "capture-pane", "-p", "-t", "t").splitlines()
    return lines[0] if lines else ""


def one_run(binary, corpus, socket, state, timeout=300.0):
    script = (
        f"XDG_STATE_HOME={state} XDG_CONFIG_HOME={state} TERM=xterm-256color "
        f"exec {binary} {corpus}"
    )
    started = time.monotonic()
    tmux(socket, "-f", "/dev/null", "new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT),
         "-s", "t", "sh", "-c", script)
    rows = table = linked = None
    try:
        while time.monotonic() - started < timeout:
            h = header(socket)
            now = time.monotonic() - started
            if " objects" in h and " of " in h:
                if rows is None:
                    rows = now
                if table is None and "loading" not in h:
                    table = now
                if table is not None and "linking" not in h:
                    linked = now
                    break
            time.sleep(0.01)
    finally:
        tmux(socket, "kill-server")
    if linked is None:
        raise SystemExit(f"timed out; last header: {header(socket)!r}")
    return rows, table, linked


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default="target/release/kubesift")
    a = ap.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is required")
    binary = os.path.abspath(a.bin)
    corpus = os.path.abspath(a.corpus)
    state = tempfile.mkdtemp(prefix="kubesift-bench-state-")
    socket = f"kubesift-load-{os.getpid()}"
    runs = []
    try:
        for n in range(a.runs):
            r = one_run(binary, corpus, socket, state)
            runs.append(r)
            print(f"run {n + 1}: first rows {r[0] * 1000:.0f} ms, full table {r[1] * 1000:.0f} ms, "
                  f"linked {r[2] * 1000:.0f} ms", flush=True)
            time.sleep(0.5)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    med = [statistics.median(r[i] for r in runs) * 1000 for i in range(3)]
    print(f"{corpus}: median of {len(runs)}: first rows {med[0]:.0f} ms, full table {med[1]:.0f} ms, "
          f"linked {med[2]:.0f} ms")


if __name__ == "__main__":
    main()
