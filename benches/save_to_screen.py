#!/usr/bin/env python3
"""Save-to-screen latency of the real UI (issue 7): kubesift runs in tmux on CORPUS, the bar
filters to `kubesift-bench` (no object has that label at first), then one file is saved
atomically (temporary file renamed over it) with its first object labelled
`kubesift-bench=edit-N`; the time from the rename until the pane shows `edit-N` (a label
column) is one sample. The file is restored at the end.

The latency includes the watcher's debounce (`watch::watcher::DEBOUNCE`, 100 ms), reading and
parsing the file, the live-set patch, the UI's in-place patch (objects, label index, graph),
the frame, and tmux's own refresh; the pane is polled every 2 ms.

    python3 benches/save_to_screen.py /tmp/corpus --edits 15 [--bin target/release/kubesift]
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


def capture(socket):
    return tmux(socket, "capture-pane", "-p", "-t", "t")


def wait_for(socket, pred, timeout=120.0, poll=0.002):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        screen = capture(socket)
        if pred(screen):
            return screen
        time.sleep(poll)
    raise SystemExit("timed out; screen:\n" + capture(socket))


def pick_file(corpus):
    """A YAML file in the middle of the walk whose first object has a block `labels:`."""
    files = []
    for root, dirs, names in os.walk(corpus):
        dirs.sort()
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".yaml")]
    for path in files[len(files) // 2:] + files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        at = text.find("\n  labels:\n")
        if at < 0:
            continue
        line_start = at + len("\n  labels:\n")
        indent = len(text[line_start:]) - len(text[line_start:].lstrip(" "))
        return path, text, line_start, indent
    raise SystemExit("no YAML file with a block `labels:` in " + corpus)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--edits", type=int, default=15)
    ap.add_argument("--bin", default="target/release/kubesift")
    a = ap.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is required")
    path, text, insert_at, indent = pick_file(a.corpus)
    binary = os.path.abspath(a.bin)
    state = tempfile.mkdtemp(prefix="kubesift-bench-state-")
    socket = f"kubesift-save-{os.getpid()}"
    script = (
        f"cd {a.corpus} && XDG_STATE_HOME={state} XDG_CONFIG_HOME={state} TERM=xterm-256color "
        f"{binary} -L kubesift-bench . ; sleep 60"
    )
    tmux(socket, "-f", "/dev/null", "new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT),
         "-s", "t", "sh", "-c", script)
    samples = []
    try:
        started = time.monotonic()
        wait_for(socket, lambda s: " of " in s.splitlines()[0] and "loading" not in s.splitlines()[0]
                 and "objects" in s.splitlines()[0], timeout=300)
        loaded = time.monotonic() - started
        tmux(socket, "send-keys", "-t", "t", "-l", "/kubesift-bench")
        tmux(socket, "send-keys", "-t", "t", "Enter")
        wait_for(socket, lambda s: s.splitlines()[0].startswith("0 of "))
        print(f"file {path}; UI loaded in {loaded:.1f} s (as seen through tmux)")
        for n in range(a.edits):
            value = f"edit-{n}"
            edited = text[:insert_at] + " " * indent + f"kubesift-bench: {value}\n" + text[insert_at:]
            tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".swp")
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(edited)
            t0 = time.monotonic()
            os.rename(tmp, path)
            wait_for(socket, lambda s: value in s, timeout=30)
            samples.append((time.monotonic() - t0) * 1000)
            print(f"  edit {n}: {samples[-1]:.0f} ms", flush=True)
            time.sleep(0.3)
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        tmux(socket, "kill-server")
        shutil.rmtree(state, ignore_errors=True)
    print(f"save → screen over {len(samples)} edits: median {statistics.median(samples):.0f} ms, "
          f"min {min(samples):.0f} ms, max {max(samples):.0f} ms (debounce 100 ms included)")


if __name__ == "__main__":
    main()
