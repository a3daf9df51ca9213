#!/usr/bin/env python3
"""The baseline a user would script: load a manifest tree with PyYAML's C loader
(yaml.CSafeLoader; .json files with the json module), flatten Lists, filter by a
Kubernetes label selector, print counts and wall time.

    python3 benches/pyyaml_baseline.py DIR [--selector 'app.kubernetes.io/part-of in (shop,data),tier!=cache'] [--json]

Selector semantics as kubectl's: comma = AND; `k=v`, `k==v`, `k!=v` (true when k is
absent), `k in (a,b)`, `k notin (a,b)` (true when absent), `k` (exists), `!k` (absent).
"""
import argparse
import json
import os
import re
import resource
import sys
import time

import yaml

DEFAULT = "app.kubernetes.io/part-of in (shop,data),tier!=cache"


def split_terms(text):
    terms, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            terms.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        terms.append(cur.strip())
    return terms


def parse_selector(text):
    reqs = []
    for t in split_terms(text):
        m = re.fullmatch(r"(\S+)\s+(in|notin)\s*\((.*)\)", t)
        if m:
            values = {v.strip() for v in m.group(3).split(",")}
            reqs.append((m.group(1), m.group(2), values))
            continue
        m = re.fullmatch(r"([^!=\s]+)\s*(==|!=|=)\s*(\S*)", t)
        if m:
            op = {"==": "=", "=": "=", "!=": "!="}[m.group(2)]
            reqs.append((m.group(1), op, {m.group(3)}))
            continue
        if t.startswith("!"):
            reqs.append((t[1:].strip(), "!", set()))
        else:
            reqs.append((t, "exists", set()))
    return reqs


def matches(reqs, labels):
    for key, op, values in reqs:
        v = labels.get(key)
        if op in ("=", "in"):
            ok = v is not None and v in values
        elif op in ("!=", "notin"):
            ok = v is None or v not in values
        elif op == "exists":
            ok = v is not None
        else:
            ok = v is None
        if not ok:
            return False
    return True


def objects_of(doc):
    if isinstance(doc, list):
        for d in doc:
            yield from objects_of(d)
    elif isinstance(doc, dict):
        if str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            for item in doc["items"]:
                if isinstance(item, dict):
                    yield item
        elif "kind" in doc and "apiVersion" in doc:
            yield doc


def load_file(path):
    """The file's objects and its error (None when it loaded): a broken file keeps the documents
    before the error and does not stop the run, as `kubectl get -f DIR` goes on past one."""
    out = []
    try:
        with open(path, "rb") as f:
            if path.endswith(".json"):
                out.extend(objects_of(json.load(f)))
            else:
                for doc in yaml.load_all(f, Loader=yaml.CSafeLoader):
                    out.extend(objects_of(doc))
    except (yaml.YAMLError, ValueError) as e:  # ValueError: JSON and UTF-8 decoding errors
        return out, e
    return out, None


def walk(root):
    if os.path.isfile(root):
        return [root]
    found = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for name in sorted(files):
            if not name.startswith(".") and name.endswith((".yaml", ".yml", ".json")):
                found.append(os.path.join(d, name))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--selector", default=DEFAULT)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    assert yaml.__with_libyaml__, "PyYAML without libyaml: the C loader is not available"
    start = time.perf_counter()
    objects = []
    files = 0
    nbytes = 0
    errors = 0
    for root in args.paths:
        for path in walk(root):
            files += 1
            nbytes += os.path.getsize(path)
            objs, err = load_file(path)
            objects.extend(objs)
            if err is not None:
                errors += 1
                if not args.json:
                    print(f"{path}: {str(err).splitlines()[0]}", file=sys.stderr)
    loaded = time.perf_counter()
    reqs = parse_selector(args.selector)
    matched = sum(
        1 for o in objects if matches(reqs, (o.get("metadata") or {}).get("labels") or {})
    )
    end = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result = {
        "files": files,
        "bytes": nbytes,
        "objects": len(objects),
        "matched": matched,
        "errors": errors,
        "load_s": round(loaded - start, 3),
        "filter_s": round(end - loaded, 3),
        "total_s": round(end - start, 3),
        "peak_rss_bytes": peak,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{files} files, {nbytes / 1e6:.1f} MB, {len(objects)} objects, {errors} files with errors; "
            f"{matched} match {args.selector!r}; load {result['load_s']} s, "
            f"filter {result['filter_s']} s, total {result['total_s']} s; peak RSS {peak / 1e6:.0f} MB"
        )


if __name__ == "__main__":
    sys.exit(main())
