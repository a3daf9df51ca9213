#!/usr/bin/env python3
"""The scaling table of BENCHMARKS.md: `kubesift bench -o json` on corpora of growing size
(e.g. gen_corpus -n 10000 / 100000 / 1000000), N runs each, medians per corpus, and
optionally the PyYAML C-loader script (`pyyaml_baseline.py`) on each corpus beside it.

    python3 benches/scaling.py /tmp/corpus-10k /tmp/corpus /tmp/corpus-1m [--runs 3]
        [--kubesift target/release/kubesift] [--pyyaml [--pyyaml-upto BYTES]] [--rounds 2]

Prints every run, then one markdown row per corpus: objects, bytes, load to full table,
first rows, linked, peak RSS (and its ratio to the corpus bytes), keystroke p50/p99, the
one-file edit (total and graph patch), the YAML fast-path share, and, with --pyyaml, the
PyYAML script's wall time and the ratio. Each corpus is read once before each tool's run so
both start with its files in the page cache (`side_by_side.warm`).
"""
import argparse
import os
import statistics
import sys

from side_by_side import run_json, warm

HERE = os.path.dirname(os.path.abspath(__file__))


def kubesift(binary, corpus, rounds):
    return run_json([binary, "bench", "-f", corpus, "-o", "json", "--rounds", str(rounds)])


def pyyaml(corpus):
    return run_json([sys.executable, os.path.join(HERE, "pyyaml_baseline.py"), corpus, "--json"])


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--kubesift", default="target/release/kubesift")
    ap.add_argument("--pyyaml", action="store_true")
    ap.add_argument("--pyyaml-upto", type=float, default=300e6,
                    help="run the PyYAML script only on corpora up to this many bytes "
                         "(it takes ~25 minutes at 1M objects)")
    a = ap.parse_args()
    rows = []
    for corpus in a.corpora:
        runs, py = [], []
        for i in range(a.runs):
            warm(corpus)
            r = kubesift(a.kubesift, corpus, a.rounds)
            runs.append(r)
            lm = r["load_ms"]
            print(f"{corpus} run {i + 1}: table {lm['to_table']:.0f} ms, first rows "
                  f"{lm['first_rows']:.1f} ms, linked {lm['to_linked']:.0f} ms, RSS "
                  f"{r['rss']['peak_bytes'] / 1e6:.0f} MB, p99 {r['keystrokes']['p99_ms']:.2f} ms, "
                  f"edit {r['delta']['total_ms']:.1f} ms", flush=True)
            if a.pyyaml and r["corpus"]["bytes"] <= a.pyyaml_upto:
                warm(corpus)
                p = pyyaml(corpus)
                py.append(p)
                print(f"{corpus} run {i + 1}: pyyaml {p}", flush=True)
        c = runs[0]["corpus"]
        row = {
            "corpus": corpus,
            "objects": c["objects"],
            "bytes": c["bytes"],
            "table": med([r["load_ms"]["to_table"] for r in runs]),
            "first_rows": med([r["load_ms"]["first_rows"] for r in runs]),
            "linked": med([r["load_ms"]["to_linked"] for r in runs]),
            "parse": med([r["load_ms"]["parse"] for r in runs]),
            "rss": med([r["rss"]["peak_bytes"] for r in runs]),
            "p50": med([r["keystrokes"]["p50_ms"] for r in runs]),
            "p99": med([r["keystrokes"]["p99_ms"] for r in runs]),
            "edit": med([r["delta"]["total_ms"] for r in runs]),
            "edit_graph": med([r["delta"]["graph_ms"] for r in runs]),
            "fast": runs[0]["yaml"]["fast"] / max(1, runs[0]["yaml"]["documents"]),
        }
        if py:
            row["pyyaml_s"] = med([p["total_s"] for p in py])
        rows.append(row)
    print()
    head = ("| objects | MB | load → full table | first rows | linked | parse | peak RSS "
            "(× corpus) | keystroke p50 / p99 | one-file edit (graph) | fast path |")
    if a.pyyaml:
        head += " PyYAML script | ratio |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        line = (f"| {r['objects']:,} | {r['bytes'] / 1e6:,.1f} | {r['table']:,.0f} ms | "
                f"{r['first_rows']:.1f} ms | {r['linked']:,.0f} ms | {r['parse']:,.0f} ms | "
                f"{r['rss'] / 1e6:,.0f} MB ({r['rss'] / r['bytes']:.2f}×) | "
                f"{r['p50']:.2f} / {r['p99']:.2f} ms | {r['edit']:.1f} ms ({r['edit_graph']:.1f}) | "
                f"{100 * r['fast']:.1f} % |")
        if a.pyyaml and r.get("pyyaml_s"):
            line += f" {r['pyyaml_s']:.2f} s | {1000 * r['pyyaml_s'] / r['table']:.1f}× |"
        print(line)


if __name__ == "__main__":
    main()
