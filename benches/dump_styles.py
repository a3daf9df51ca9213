#!/usr/bin/env python3
"""Re-dumps a corpus's objects as Python YAML libraries write them, for the fast path's
coverage (BENCHMARKS.md, "YAML fast path coverage").

    python3 benches/dump_styles.py SRC OUT --style pyyaml|pyyaml-unicode|ruamel [--c]

Every YAML/JSON file under SRC is read (all documents; unreadable ones are skipped) and
written under OUT with the same relative path, as one multi-document stream:

- `pyyaml`: `yaml.dump_all(docs, default_flow_style=False, width=80)` (non-ASCII escaped,
  long strings folded over lines, multi-line strings double-quoted with escaped breaks);
- `pyyaml-unicode`: the same with `allow_unicode=True, explicit_start=True`;
- `ruamel`: ruamel.yaml's round-trip dumper (`typ="safe", pure=True`), width 80.

`--c` dumps with PyYAML's libyaml emitter (`CSafeDumper`, the same styles, faster) for big
corpora. Prints documents and files written.
"""
import argparse
import io
import json
import os
import sys

import yaml


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return []
    try:
        if path.endswith(".json"):
            return [json.loads(text)]
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return [d for d in yaml.load_all(text, Loader=loader) if d is not None]
    except Exception:  # noqa: BLE001 - a corpus holds broken files on purpose
        return []


def dumper(style, use_c):
    if style == "ruamel":
        from ruamel.yaml import YAML

        y = YAML(typ="safe", pure=True)
        y.default_flow_style = False
        y.width = 80
        y.explicit_start = True

        def dump(docs, out):
            y.dump_all(docs, out)

        return dump
    base = yaml.CSafeDumper if use_c else yaml.SafeDumper
    extra = {"allow_unicode": True, "explicit_start": True} if style == "pyyaml-unicode" else {}

    def dump(docs, out):
        yaml.dump_all(docs, out, Dumper=base, default_flow_style=False, width=80, **extra)

    return dump


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--style", default="pyyaml", choices=["pyyaml", "pyyaml-unicode", "ruamel"])
    ap.add_argument("--c", action="store_true")
    a = ap.parse_args()
    dump = dumper(a.style, a.c)
    files = docs = 0
    for root, _dirs, names in os.walk(a.src):
        for name in sorted(names):
            if not name.endswith((".yaml", ".yml", ".json")):
                continue
            path = os.path.join(root, name)
            items = load(path)
            if not items:
                continue
            rel = os.path.relpath(path, a.src)
            dest = os.path.join(a.out, os.path.splitext(rel)[0] + ".yaml")
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            buf = io.StringIO()
            try:
                dump(items, buf)
            except Exception as e:  # noqa: BLE001 - e.g. keys ruamel cannot write
                print(f"skipped {path}: {e}", file=sys.stderr)
                continue
            with open(dest, "w", encoding="utf-8") as f:
                f.write(buf.getvalue())
            files += 1
            docs += len(items)
    print(f"{docs} documents in {files} files written under {a.out}")


if __name__ == "__main__":
    main()
