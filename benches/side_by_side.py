#!/usr/bin/env python3
"""Side-by-side run for BENCHMARKS.md: `kubesift bench -o json` and the PyYAML C-loader
script on the same corpus, alternated, N times each; prints every run and the medians.

    python3 benches/side_by_side.py /tmp/corpus [--runs 3] [--kubesift target/release/kubesift]
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--kubesift", default=os.path.join(HERE, "..", "target", "release", "kubesift"))
    args = ap.parse_args()
    ks, py = [], []
    for i in range(args.runs):
        k = run_json([args.kubesift, "bench", "-f", args.corpus, "-o", "json"])
        ks.append(k)
        print(f"run {i + 1} kubesift: {json.dumps(k)}", flush=True)
        p = run_json([sys.executable, os.path.join(HERE, "pyyaml_baseline.py"), args.corpus, "--json"])
        py.append(p)
        print(f"run {i + 1} pyyaml:   {json.dumps(p)}", flush=True)

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
                  "to_table", "first_file", "loading_frame"]:
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
    print("medians: " + json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
