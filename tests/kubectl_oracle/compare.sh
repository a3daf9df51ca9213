#!/bin/bash
# Byte-compares `kubectl get` (real kubectl, against server.py, a fake API server serving
# server-side Tables) with `kubesift get` on the same objects as manifests. Not run by the
# test suite (needs kubectl and python3):
#   DIR=$(mktemp -d); python3 tests/kubectl_oracle/make_manifests.py $DIR
#   python3 tests/kubectl_oracle/server.py 18080 & DIR=$DIR tests/kubectl_oracle/compare.sh
# Compares kubectl (against the fake server) with kubesift (on the same objects as manifests).
K="kubectl -s http://127.0.0.1:18080 --cache-dir $DIR/cache"
B=${B:-/work/wt-cli19/target/debug/kubesift}
fail=0
check() { # kubectl-args ; kubesift-args
  local ka="$1" sa="$2"
  diff <($K $ka 2>&1) <($B get $sa 2>&1) > $DIR/d.txt && echo "same: $ka" || { echo "DIFF: $ka"; cat $DIR/d.txt; fail=1; }
}
M=$DIR/objs.json
check "get deploy -A" "deploy -f $M"
check "get deploy -A -o wide" "deploy -f $M -o wide"
check "get deploy -A -L app.kubernetes.io/instance,argocd.argoproj.io/instance --show-labels" "deploy -f $M -L app.kubernetes.io/instance,argocd.argoproj.io/instance --show-labels"
check "get deploy -A -o wide --show-labels -L tier" "deploy -f $M -o wide --show-labels -L tier"
check "get deploy -n shop" "deploy -n shop -f $M"
check "get deploy -n shop --no-headers" "deploy -n shop -f $M --no-headers"
check "get ns" "ns -f $M"
check "get deploy,ns -A" "deploy,ns -f $M"
check "get ns,deploy -A" "ns,deploy -f $M"
check "get deploy,ns -A --field-selector metadata.namespace=staging" "deploy,ns -f $M --field-selector metadata.namespace=staging"
check "get ns,deploy -A --field-selector metadata.namespace=staging" "ns,deploy -f $M --field-selector metadata.namespace=staging"
check "get ns --field-selector metadata.namespace=staging" "ns -f $M --field-selector metadata.namespace=staging"
check "get cm -A" "cm -f $DIR/cms.json"
check "get deploy,ns -A --no-headers" "deploy,ns -f $M --no-headers"
check "get ns,deploy -A --no-headers -L app.kubernetes.io/instance" "ns,deploy -f $M --no-headers -L app.kubernetes.io/instance"
# get -w: the list, then server.py's WATCH_EVENTS (a longer name widens the lines after it).
echo "get -w (kubectl; compare by eye with tests/cli_get_watch.rs's table test):"
timeout 5 $K get deploy -n shop -w --output-watch-events 2>/dev/null
exit $fail
