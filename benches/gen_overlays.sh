#!/bin/sh
# Generates a GitOps-style repo for the rendering benchmark (BENCHMARKS.md): 10 bases of 4
# objects each and N overlays (default 60), each over one base with a namePrefix, a
# namespace, labels, an image and a replicas patch, plus 20 plain manifests.
# Usage: benches/gen_overlays.sh OUT [N]
set -eu
out=$1
n=${2:-60}
mkdir -p "$out"
for b in $(seq 0 9); do
  d="$out/bases/app$b"
  mkdir -p "$d"
  printf 'resources:\n- deployment.yaml\n- service.yaml\n- configmap.yaml\n- serviceaccount.yaml\n' > "$d/kustomization.yaml"
  cat > "$d/deployment.yaml" <<END
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app$b
  labels: {app: app$b}
spec:
  replicas: 1
  selector: {matchLabels: {app: app$b}}
  template:
    metadata: {labels: {app: app$b}}
    spec:
      serviceAccountName: app$b
      containers:
      - name: app
        image: registry.example.com/app$b:1.0
END
  printf 'apiVersion: v1\nkind: Service\nmetadata:\n  name: app%s\nspec:\n  selector: {app: app%s}\n  ports: [{port: 80}]\n' "$b" "$b" > "$d/service.yaml"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app%s\ndata: {k: v}\n' "$b" > "$d/configmap.yaml"
  printf 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: app%s\n' "$b" > "$d/serviceaccount.yaml"
done
for i in $(seq 1 "$n"); do
  b=$((i % 10))
  d="$out/overlays/env$i"
  mkdir -p "$d"
  cat > "$d/kustomization.yaml" <<END
namePrefix: env$i-
namespace: env$i
labels:
- pairs: {env: env$i}
resources:
- ../../bases/app$b
images:
- name: registry.example.com/app$b
  newTag: "$i.0"
patches:
- path: replicas.yaml
END
  printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app%s\nspec:\n  replicas: %s\n' "$b" "$((i % 5 + 1))" > "$d/replicas.yaml"
done
mkdir -p "$out/plain"
for i in $(seq 1 20); do
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain%s\n  namespace: tools\ndata: {k: v}\n' "$i" > "$out/plain/cm$i.yaml"
done
