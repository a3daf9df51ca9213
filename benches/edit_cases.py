#!/usr/bin/env python3
"""One-file edits in every shape issue 21 names, measured by `kubesift bench --edit`.

    python3 benches/edit_cases.py SRC WORK [--bin target/release/kubesift] [--runs 3]
                                  [--cases plain,terminating,nodes,namespaces,mirror,bigns]
                                  [--shape annotation|label|add|remove|empty]

SRC is a `gen_corpus` output (e.g. `gen_corpus -n 100000 -o /tmp/corpus`). WORK is a
scratch folder (created; its case folders are reused when already there) where the cases
are made from SRC by hard links plus a few new files — SRC itself is never written:

- plain:       SRC as it is; the edited file is the middle one.
- terminating: plus a Namespace per folder, the edited file's Namespace Terminating
               (deletionTimestamp + the `kubernetes` finalizer).
- nodes / namespaces / mirror: plus a file of 40 Nodes (every generated Pod's nodeName), a
               file of the Namespaces, and a file of 100 Node-owned mirror Pods; the edit is
               in that file (cluster-scoped owners and Namespaces changing).
- bigns:       80 % of the folders' objects rewritten into one namespace (`ml-dev`), the
               edit in that namespace.

Every run loads the case folder, types the selector and edits the file in memory (nothing
is written: see `kubesift bench`, whose `--edit-shape` `--shape` passes on); this prints, per case, the median of the total edit time
(UI update + frame) and of the graph patch, and the patch's outcome.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

NODES = 40
MIRRORS = 100
BIG_NS = "ml-dev"


def namespaces_of(src):
    return sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))


def middle_file(folder, ns):
    files = sorted(f for f in os.listdir(os.path.join(folder, ns)))
    return os.path.join(folder, ns, files[len(files) // 2])


def link_tree(src, dst):
    if os.path.isdir(dst):
        return False
    shutil.copytree(src, dst, copy_function=os.link)
    return True


def namespace_doc(name, terminating=False):
    meta = f"  name: {name}\n"
    if terminating:
        meta += "  deletionTimestamp: \"2026-11-01T00:00:00Z\"\n"
    spec = "spec:\n  finalizers:\n  - kubernetes\n" if terminating else ""
    status = "status:\n  phase: Terminating\n" if terminating else "status:\n  phase: Active\n"
    return f"apiVersion: v1\nkind: Namespace\nmetadata:\n{meta}{spec}{status}"


def node_doc(i):
    return (
        "apiVersion: v1\nkind: Node\nmetadata:\n"
        f"  name: node-{i}\n  uid: 00000000-0000-4000-8000-{i:012d}\n"
        f"  labels:\n    kubernetes.io/hostname: node-{i}\n"
        f"    topology.kubernetes.io/zone: zone-{i % 3}\n"
        "status:\n  conditions:\n  - type: Ready\n    status: \"True\"\n"
    )


def mirror_doc(i):
    node = i % NODES
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n"
        f"  name: kube-proxy-node-{node}-{i}\n  namespace: kube-system\n"
        "  labels:\n    k8s-app: kube-proxy\n"
        "  ownerReferences:\n  - apiVersion: v1\n    kind: Node\n"
        f"    name: node-{node}\n    uid: 00000000-0000-4000-8000-{node:012d}\n"
        "    controller: true\n"
        f"spec:\n  nodeName: node-{node}\n  containers:\n  - name: kube-proxy\n"
        "    image: registry.k8s.io/kube-proxy:v1.31.0\n"
    )


def write(path, docs):
    with open(path, "w") as f:
        f.write("---\n".join(docs))


def make_cases(src, work):
    """Builds the case folders under `work`; returns {case: (folder, edited file)}."""
    os.makedirs(work, exist_ok=True)
    nss = namespaces_of(src)
    edit_ns = nss[len(nss) // 2]
    cases = {"plain": (src, middle_file(src, edit_ns))}

    term = os.path.join(work, "terminating")
    if link_tree(src, term):
        write(os.path.join(term, "namespaces.yaml"),
              [namespace_doc(n, terminating=(n == edit_ns)) for n in nss])
    cases["terminating"] = (term, middle_file(term, edit_ns))

    cluster = os.path.join(work, "cluster")
    if link_tree(src, cluster):
        write(os.path.join(cluster, "nodes.yaml"), [node_doc(i) for i in range(NODES)])
        write(os.path.join(cluster, "namespaces.yaml"),
              [namespace_doc(n) for n in nss + ["kube-system"]])
        write(os.path.join(cluster, "mirror.yaml"), [mirror_doc(i) for i in range(MIRRORS)])
    for case, name in (("nodes", "nodes.yaml"), ("namespaces", "namespaces.yaml"),
                       ("mirror", "mirror.yaml")):
        cases[case] = (cluster, os.path.join(cluster, name))

    big = os.path.join(work, "bigns")
    moved = nss[: max(1, len(nss) * 4 // 5)]
    if not os.path.isdir(big):
        os.makedirs(big)
        for ns in nss:
            if ns not in moved:
                shutil.copytree(os.path.join(src, ns), os.path.join(big, ns),
                                copy_function=os.link)
                continue
            # The folder keeps its name; the objects move into BIG_NS (names stay unique:
            # the generator's names carry the app's index).
            pattern = re.compile(rb'(namespace"?:\s*"?)' + re.escape(ns.encode()) + rb'\b')
            os.makedirs(os.path.join(big, ns))
            for f in os.listdir(os.path.join(src, ns)):
                with open(os.path.join(src, ns, f), "rb") as fh:
                    text = fh.read()
                with open(os.path.join(big, ns, f), "wb") as fh:
                    fh.write(pattern.sub(rb"\g<1>" + BIG_NS.encode(), text))
    cases["bigns"] = (big, middle_file(big, moved[len(moved) // 2]))
    return cases


def run(binary, folder, edit, shape):
    out = subprocess.run(
        [binary, "bench", "-f", folder, "--rounds", "1", "--edit", edit,
         "--edit-shape", shape, "-o", "json"],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("work")
    ap.add_argument("--bin", default="target/release/kubesift")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cases", default="plain,terminating,nodes,namespaces,mirror,bigns")
    ap.add_argument("--shape", default="annotation",
                    help="what the edit changes (bench --edit-shape): annotation, label, add, remove, empty")
    ap.add_argument("--json", action="store_true", help="print every run's delta as JSON")
    args = ap.parse_args()

    cases = make_cases(args.src, args.work)
    wanted = [c for c in args.cases.split(",") if c]
    print(f"| case | file | objects | total ms | graph patch ms | outcome |")
    print("|---|---|---|---|---|---|")
    for case in wanted:
        if case not in cases:
            sys.exit(f"unknown case {case!r} (known: {', '.join(cases)})")
        folder, edit = cases[case]
        deltas = []
        for _ in range(args.runs):
            report = run(args.bin, folder, edit, args.shape)
            d = report["delta"]
            if d.get("skipped"):
                sys.exit(f"{case}: skipped: {d['skipped']}")
            deltas.append(d)
            if args.json:
                print(json.dumps({"case": case, **d}), file=sys.stderr)
        total = statistics.median(d["total_ms"] for d in deltas)
        graph = statistics.median(d["graph_ms"] for d in deltas)
        objects = report["corpus"]["objects"]
        rel = os.path.relpath(edit, folder)
        print(f"| {case} | {rel} | {objects:,} | {total:.1f} | {graph:.1f} | "
              f"{deltas[-1]['graph_outcome']} |", flush=True)


if __name__ == "__main__":
    main()
