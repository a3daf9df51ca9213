#!/usr/bin/env bash
# Issue 21 measurements (BENCHMARKS.md, top section): NEW and BASE are two kubesift
# binaries, corpora made as BENCHMARKS.md says and copied to a tmpfs at /mnt/ram (the page
# cache of /tmp is evicted between runs on the measuring VM). Output in $M.
set -u
cd "$(dirname "$0")/.."
NEW=${NEW:-/tmp/kubesift-new} BASE=${BASE:-/tmp/kubesift-base}
M=${M:-/tmp/measure3}; mkdir -p $M
uptime > $M/uptime.start
for r in 1 2; do
  for shape in annotation label add; do
    $NEW bench -f /mnt/ram/corpus-1m --rounds 3 --edit-shape $shape -o json > $M/1m-new-$shape-$r.json 2>$M/1m-new-$shape-$r.err
  done
  for shape in label add; do
    $BASE bench -f /mnt/ram/corpus-1m --rounds 3 --edit-shape $shape -o json > $M/1m-base-$shape-$r.json 2>$M/1m-base-$shape-$r.err
  done
done
uptime > $M/uptime.1m
for shape in annotation label add; do
  python3 benches/edit_cases.py /mnt/ram/corpus /mnt/ram/edit-cases --bin $NEW --runs 3 --shape $shape > $M/edits-new-$shape.md 2>&1
done
uptime > $M/uptime.edits
python3 benches/scaling.py /mnt/ram/corpus-10k /mnt/ram/corpus --runs 3 --rounds 2 --kubesift $NEW > $M/scaling-new.md 2>&1
SEL='app.kubernetes.io/part-of in (shop,data),tier!=cache'
for i in 1 2 3; do
  for b in $BASE $NEW; do
    /usr/bin/time -f "$b %e s wall %U user %S sys %M KB" $b get -f /mnt/ram/unseen2 -A -l "$SEL" -o name 2>>$M/unseen2-get.txt >/dev/null
  done
done
for i in 1 2 3; do
  for b in $BASE $NEW; do
    echo "$b $($b bench -f /mnt/ram/unseen2 --rounds 1 -o json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["load_ms"]["to_table"], d["load_ms"]["parse"], d["rss"]["peak_bytes"], d["keystrokes"]["p99_ms"])')" >> $M/unseen2-bench.txt
  done
done
python3 benches/side_by_side.py /mnt/ram/unseen2 --runs 1 --kubesift $NEW > $M/sbs.txt 2>&1
uptime > $M/uptime.end
echo done > $M/DONE
