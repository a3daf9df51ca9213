#!/usr/bin/env python3
"""Side-by-side run for BENCHMARKS.md: `kubesift bench -o json` and the PyYAML C-loader
script on the same corpus, alternated, N times each; prints every run and the medians.

    python3 benches/side_by_side.py /tmp/corpus [--runs 3] [--kubesift target/release/kubesift]

Several corpora in one run (e.g. gen_corpus's and gen_unseen.py's):

    python3 benches/side_by_side.py /tmp/corpus /tmp/unseen --runs 3

Each run goes through every corpus (kubesift, then PyYAML, on each), the corpus order
alternating from run to run; prints every run (prefixed with its corpus), the medians of each
corpus, and a comparison table with the ratios to the first corpus.

Before each tool's run the corpus is read once (every file, to /dev/null), so both tools
start with its files in the page cache: a VM that reclaims page cache left unused for a
minute (this one does) would otherwise make whichever tool runs after a long run on another
corpus read part of its files from disk. `--no-warm` measures as the cache happens to be.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def warm(corpus):
    """Reads every file under `corpus` once (into the page cache)."""
    for root, _dirs, files in os.walk(corpus):
        for name in files:
            try:
                with open(os.path.join(root, name), "rb") as f:
                    while f.read(1 << 20):
                        pass
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--kubesift", default=os.path.join(HERE, "..", "target", "release", "kubesift"))
    ap.add_argument("--no-warm", action="store_true",
                    help="do not read the corpus into the page cache before each run")
    args = ap.parse_args()
    corpora = args.corpus
    several = len(corpora) > 1
    ks = {c: [] for c in corpora}
    py = {c: [] for c in corpora}
    for i in range(args.runs):
        for c in corpora if i % 2 == 0 else corpora[::-1]:
            tag = f"[{c}] " if several else ""
            if not args.no_warm:
                warm(c)
            k = run_json([args.kubesift, "bench", "-f", c, "-o", "json"])
            ks[c].append(k)
            print(f"{tag}run {i + 1} kubesift: {json.dumps(k)}", flush=True)
            if not args.no_warm:
                warm(c)
            p = run_json([sys.executable, os.path.join(HERE, "pyyaml_baseline.py"), c, "--json"])
            py[c].append(p)
            print(f"{tag}run {i + 1} pyyaml:   {json.dumps(p)}", flush=True)
    summaries = {}
    for c in corpora:
        summaries[c] = summarize(ks[c], py[c])
        label = f"medians [{c}]: " if several else "medians: "
        print(label + json.dumps(summaries[c], indent=1))
    if several:
        compare(corpora, summaries)


def compare(corpora, summaries):
    """One line per corpus: sizes, the headline medians, and their ratio to the first corpus."""
    cols = [("load_to_table_ms", "kubesift load→table ms"), ("pyyaml_total_s", "pyyaml total s"),
            ("speedup_vs_pyyaml", "speedup"), ("keystroke_p99_ms", "keystroke p99 ms"),
            ("kubesift_peak_rss_mb", "peak RSS MB"), ("kubesift_rss_per_corpus_byte", "RSS/corpus byte")]
    first = summaries[corpora[0]]
    print("comparison (medians; ratio to the first corpus in parentheses):")
    for c in corpora:
        s = summaries[c]
        parts = [f"{s['objects']} objects, {s['files']} files, {s['bytes'] / 1e6:.1f} MB, "
                 f"matched {s['kubesift_matched']} (pyyaml {s['pyyaml_matched']})"]
        for key, name in cols:
            ratio = s[key] / first[key] if first[key] else float("nan")
            parts.append(f"{name} {s[key]:.4g} ({ratio:.2f}×)")
        print(f"  {c}: " + "; ".join(parts))


def summarize(ks, py):
    def med(rows, *path):
        vals = []
        for r in rows:
            for p in path:
                r = r[p]
            vals.append(r)
        return statistics.median(vals)

    corpus_bytes = ks[0]["corpus"]["bytes"]
    summary = {
        "objects": ks[0]["corpus"]["objects"],
        "files": ks[0]["corpus"]["files"],
        "bytes": corpus_bytes,
        "kubesift_matched": ks[0]["keystrokes"]["matched"],
        "pyyaml_matched": py[0]["matched"],
    }
    for phase in ["walk", "read", "parse", "inventory", "index", "graph", "table", "table_frame",
                  "to_table", "to_linked", "first_rows", "first_file", "loading_frame"]:
        summary[f"load_{phase}_ms"] = med(ks, "load_ms", phase)
    for stat in ["min_ms", "p50_ms", "p99_ms", "max_ms"]:
        summary[f"keystroke_{stat}"] = med(ks, "keystrokes", stat)
    for step in ["parse_ms", "apply_ms", "handoff_ms", "index_ms", "graph_ms", "frame_ms", "total_ms"]:
        summary[f"delta_{step}"] = med(ks, "delta", step)
    summary["kubesift_peak_rss_mb"] = med(ks, "rss", "peak_bytes") / 1e6
    summary["kubesift_rss_per_corpus_byte"] = med(ks, "rss", "peak_per_corpus_byte")
    summary["pyyaml_load_s"] = med(py, "load_s")
    summary["pyyaml_total_s"] = med(py, "total_s")
    summary["pyyaml_peak_rss_mb"] = med(py, "peak_rss_bytes") / 1e6
    summary["speedup_vs_pyyaml"] = summary["pyyaml_total_s"] * 1000 / summary["load_to_table_ms"]
    # PyYAML counts every document with apiVersion and kind (also a Kustomization) and skips
    # files it cannot parse: its object count can differ from kubesift's
    summary["pyyaml_objects"] = py[0]["objects"]
    summary["pyyaml_errors"] = py[0].get("errors", 0)
    # the one-file edit is not measured when its file rebuilds the live set (e.g. it holds a
    # custom resource): the delta_* medians are then 0 and this says why
    summary["delta_skipped"] = ks[0].get("delta", {}).get("skipped")
    return summary


if __name__ == "__main__":
    main()
