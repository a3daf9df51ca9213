"""Writes the manifests matching server.py's objects into the directory given."""
import json, sys

out = sys.argv[1]
deps = [("shop", "checkout", {"app.kubernetes.io/instance": "shop-prod", "argocd.argoproj.io/instance": "shop", "tier": "web"}, [("web", "nginx:1.21")], {"app": "checkout"}),
        ("shop", "a", {"app.kubernetes.io/instance": "x"}, [("c", "busybox")], {"app": "a"}),
        ("staging", "payment-gateway-long-name", {}, [("gw", "gw:2"), ("sidecar", "envoy:1.30")], {"app": "gw"})]
docs = []
for ns, name, labels, cs, sel in deps:
    md = {"name": name, "namespace": ns}
    if labels:
        md["labels"] = labels
    docs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md,
                 "spec": {"selector": {"matchLabels": sel}, "template": {"metadata": {"labels": sel},
                          "spec": {"containers": [{"name": c, "image": i} for c, i in cs]}}}})
for n in ["shop", "staging"]:
    docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}, "status": {"phase": "Active"}})
json.dump({"apiVersion": "v1", "kind": "List", "items": docs}, open(f"{out}/objs.json", "w"))
cms = [{"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": f"cm-{i:03d}" + ("-a-much-longer-name" if i == 110 else ""), "namespace": "bulk"},
        "data": {f"k{j}": "v" for j in range(i % 3)}} for i in range(120)]
json.dump({"apiVersion": "v1", "kind": "List", "items": cms}, open(f"{out}/cms.json", "w"))
