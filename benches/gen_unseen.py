#!/usr/bin/env python3
"""A second, independent corpus generator for issue 8's "corpus the tests have never seen".

    python3 benches/gen_unseen.py -n 100000 -o DIR [--seed 7] [--force]

Standard library only, deterministic (same seed and Python version → byte-identical files).
Unlike `examples/gen_corpus.rs` (≈2,000 equal files of 50 kubectl-style objects, one
Deployment → ReplicaSet → Pods chain after another), this writes what GitOps repositories
and cluster snapshots look like:

- app-per-directory kustomize layouts (`apps/<app>/base/*.yaml`, one object per file,
  `overlays/<env>/` with patches and `kustomization.yaml`), deeper tenant trees
  (`tenants/<team>/namespaces/<ns>/<app>/...`), `kustomize build` output;
- Helm-rendered releases (`# Source:` comments, `---` separators, hundreds of documents);
- `kubectl get -o json|yaml` snapshots: multi-MB `kind: List` JSON and YAML dumps, a few typed
  lists (`PodList`), live metadata (uids, ownerReferences — some dangling — finalizers,
  deletionTimestamps, status);
- CRDs with big schemas plus custom resources of them, cluster-scoped kinds (Namespace,
  ClusterRole/Binding, PersistentVolume, StorageClass, Node), RBAC, Ingress,
  StatefulSet/DaemonSet/Job/CronJob, HPA, PDB, NetworkPolicy, Secrets (base64), ConfigMaps
  with big `|` block scalars (embedded config files, JSON inside YAML);
- YAML styles: 2- and 4-space indentation, sequences indented or not, single/double quoted
  strings with escapes, comments, flow maps/sequences, anchors/aliases and `<<` merges in a
  few percent of documents, CRLF line endings and a UTF-8 BOM in a few files, non-ASCII;
- a handful of planted problems: a Helm template with `{{ }}`, a broken YAML file, an empty
  file, a README.md, a binary file with a .yaml name, kustomization.yaml / Chart.yaml /
  values.yaml (not Kubernetes objects).

It prints a summary: objects (as `kubectl get -f` counts them: List items expanded, non-objects
not counted), files, bytes, objects matching
`app.kubernetes.io/part-of in (shop,data),tier!=cache`, and the planted problem files.
"""
import argparse
import base64
import json
import os
import random
import re
import signal
import sys
import time

SELECTOR = "app.kubernetes.io/part-of in (shop,data),tier!=cache"

# ---------------------------------------------------------------------------------------------
# Vocabularies (deliberately different from gen_corpus.rs)

PART_OF = [("shop", 15), ("data", 12), ("storefront", 8), ("identity", 7), ("observability", 8),
           ("logistics", 7), ("risk", 5), ("media", 6), ("crm", 5), ("infra", 9)]
TIERS = [("web", 18), ("backend", 20), ("cache", 14), ("queue", 8), ("storage", 8), ("batch", 7),
         (None, 25)]
APP_WORDS = ["basket", "pricing-engine", "recommender", "kafka-connect", "clickhouse",
             "feature-store", "sso-bridge", "oauth-proxy", "thumbnailer", "transcoder",
             "label-printer", "route-planner", "fraud-scorer", "ledger-sync", "mailer", "notifier",
             "redis", "memcached", "postgres", "minio", "airflow-worker", "spark-driver", "loki",
             "tempo", "vector", "wishlist", "coupon", "returns", "geo-index", "invoice-pdf",
             "avatar", "consent", "session-store", "ab-testing", "stock-level", "shipment-tracker"]
COMPONENTS = ["web", "api", "worker", "scheduler", "database", "cache", "broker", "exporter",
              "migrations", "gateway", "controller", "webhook"]
MANAGED_BY = ["kustomize", "Helm", "argocd", "flux", "pulumi", "kubectl"]
TEAMS = ["checkout", "catalog", "warehouse", "insights", "accounts", "streaming", "sre", "growth",
         "payments", "search"]
ENVS = ["production", "preprod", "sandbox", "ci", "canary", "eu1", "us2"]
CLUSTERS = ["prod-eu-west", "prod-us-east", "staging-eu", "dev-sandbox", "edge-apac"]
SYSTEM_NS = ["kube-system", "cert-manager", "monitoring", "ingress", "argocd", "flux-system",
             "velero", "istio-system"]
OWNERS_TEXT = ["équipe paiement", "Jürgen Müller", "東京チーム", "Łódź on-call", "São Paulo squad",
               "Ελληνική ομάδα", "команда поиска", "Zoë O'Brien", "naïve café crew",
               "stöd & drift", "équipe \"données\""]
REGISTRIES = ["ghcr.io/acme", "quay.io/northwind", "europe-docker.pkg.dev/contoso/prod",
              "123456789012.dkr.ecr.eu-west-1.amazonaws.com", "docker.io/library"]

# CRDs: (group, kind, plural, scope, versions)
CRDS = [
    ("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", "Namespaced"),
    ("monitoring.coreos.com", "PrometheusRule", "prometheusrules", "Namespaced"),
    ("cert-manager.io", "Certificate", "certificates", "Namespaced"),
    ("cert-manager.io", "ClusterIssuer", "clusterissuers", "Cluster"),
    ("shop.acme.io", "Storefront", "storefronts", "Namespaced"),
    ("data.acme.io", "KafkaTopic", "kafkatopics", "Namespaced"),
    ("data.acme.io", "Pipeline", "pipelines", "Namespaced"),
    ("argoproj.io", "Application", "applications", "Namespaced"),
    ("policy.acme.io", "ClusterGuardrail", "clusterguardrails", "Cluster"),
    ("networking.istio.io", "VirtualService", "virtualservices", "Namespaced"),
]

# file of a kind in a "grouped" app directory
GROUPS = {"Deployment": "workload", "StatefulSet": "workload", "DaemonSet": "workload",
          "CronJob": "workload", "Job": "workload", "HorizontalPodAutoscaler": "workload",
          "PodDisruptionBudget": "workload", "Service": "networking", "Ingress": "networking",
          "NetworkPolicy": "networking", "ConfigMap": "config", "Secret": "config",
          "ServiceAccount": "rbac", "Role": "rbac", "RoleBinding": "rbac",
          "ServiceMonitor": "monitoring", "PrometheusRule": "monitoring"}

BAD_PLAIN = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "<<", "="}
PLAIN_RE = re.compile(r"[A-Za-z0-9/][A-Za-z0-9_./@%+=()\-]*(?: [A-Za-z0-9_./@%+()\-]+)*\Z")
TS_RE = re.compile(r"\d{4}-\d\d-\d\d")


def weighted(rng, pairs):
    total = sum(w for _, w in pairs)
    r = rng.random() * total
    for v, w in pairs:
        r -= w
        if r < 0:
            return v
    return pairs[-1][0]


# ---------------------------------------------------------------------------------------------
# YAML emitter with per-file style


class Style:
    """How one YAML file is written."""

    def __init__(self, rng, kind="hand"):
        self.rng = rng
        if kind == "kubectl":  # `kubectl get -o yaml`: go-yaml defaults
            self.indent, self.seq_indent, self.quote = 2, False, '"'
            self.flow, self.comments = 0.0, 0.0
        else:
            self.indent = rng.choice([2, 2, 2, 4])
            self.seq_indent = rng.random() < 0.5
            self.quote = rng.choice(['"', '"', "'"])
            self.flow = rng.choice([0.0, 0.0, 0.05, 0.25])
            self.comments = rng.choice([0.0, 0.01, 0.03])


def plain_ok(s):
    if not s or s.lower() in BAD_PLAIN or len(s) > 200:
        return False
    if not PLAIN_RE.match(s):
        return False
    if s[0].isdigit():
        # "500m", "128Mi", "1.27.3": strings in both YAML 1.1 and 1.2; anything else quoted
        if TS_RE.match(s):
            return False
        return bool(re.search(r"[g-wyzG-WYZ]", s)) or s.count(".") >= 2
    return True


def dq(s):
    return json.dumps(s, ensure_ascii=False)


def scalar(v, st, key_ctx=False):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return repr(v)
    s = v
    if plain_ok(s) and not (st.quote == "'" and not key_ctx and st.rng.random() < 0.05):
        return s
    if st.quote == "'" and "\n" not in s and "\\" not in s and s.isprintable():
        return "'" + s.replace("'", "''") + "'"
    return dq(s)


COMMENTS = ["# managed by the platform team, do not edit by hand",
            "# TODO: tune after the load test",
            "# see https://wiki.acme.io/runbooks/" , "#  keep in sync with values-prod.yaml",
            "# NOTE: bumped by renovate", "## ---- section ----",
            "# kubectl apply --server-side --force-conflicts -f .", "# überprüft am Montag"]


class Emitter:
    def __init__(self, st):
        self.st = st
        self.out = []
        self.anchors = []  # (name, dict) of the current document
        self.n_anchor = 0
        self.anchors_on = False  # anchors, aliases and merges in the current document

    def comment(self, ind):
        st = self.st
        if st.comments and st.rng.random() < st.comments:
            self.out.append(" " * ind + st.rng.choice(COMMENTS))

    def flowable(self, v, depth=0):
        if isinstance(v, dict):
            return depth < 2 and len(v) <= 4 and all(self.flowable(x, depth + 1) for x in v.values())
        if isinstance(v, list):
            return depth < 2 and len(v) <= 5 and all(self.flowable(x, depth + 1) for x in v)
        return not (isinstance(v, str) and "\n" in v)

    def flow(self, v):
        st = self.st
        if isinstance(v, dict):
            return "{" + ", ".join(f"{self.fscalar(k)}: {self.flow(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(self.flow(x) for x in v) + "]"
        return self.fscalar(v)

    def fscalar(self, v):
        s = scalar(v, self.st)
        if isinstance(v, str) and s == v and any(c in v for c in ",[]{}#"):
            s = dq(v)
        return s

    def block_scalar(self, s, ind):
        if s.endswith("\n\n") or s.startswith((" ", "\n")) or "\r" in s:
            return None
        head = "|" if s.endswith("\n") else "|-"
        lines = s[:-1].split("\n") if s.endswith("\n") else s.split("\n")
        if any(line.strip() == "" and line != "" for line in lines):
            return None
        sp = " " * ind
        return head, [sp + line if line else "" for line in lines]

    def value_lines(self, key_prefix, v, ind):
        """Writes `key_prefix` (e.g. "  name:" or "  -") followed by value v, children at ind."""
        st, out = self.st, self.out
        if isinstance(v, dict):
            if not v:
                out.append(key_prefix + " {}")
                return
            if self.anchors_on:
                for name, a in self.anchors:
                    if a == v:
                        out.append(f"{key_prefix} *{name}")
                        return
                for name, a in self.anchors:
                    if len(a) >= 2 and all(k in v for k in a) and len(v) > len(a):
                        out.append(key_prefix)
                        out.append(" " * ind + f"<<: *{name}")
                        rest = {k: x for k, x in v.items() if k not in a or a[k] != x}
                        self.mapping(rest, ind)
                        return
            if st.flow and st.rng.random() < st.flow and self.flowable(v):
                out.append(f"{key_prefix} {self.flow(v)}")
                return
            if self.anchors_on and key_prefix.strip() in ("labels:", "resources:", "matchLabels:") \
                    and len(v) >= 2:
                self.n_anchor += 1
                name = f"{key_prefix.strip()[:-1]}{self.n_anchor}"
                self.anchors.append((name, v))
                key_prefix = f"{key_prefix} &{name}"
            out.append(key_prefix)
            self.mapping(v, ind)
        elif isinstance(v, list):
            if not v:
                out.append(key_prefix + " []")
                return
            if st.flow and st.rng.random() < st.flow and self.flowable(v):
                out.append(f"{key_prefix} {self.flow(v)}")
                return
            out.append(key_prefix)
            self.sequence(v, ind)
        elif isinstance(v, str) and "\n" in v:
            b = self.block_scalar(v, ind)
            if b is None:
                out.append(f"{key_prefix} {dq(v)}")
            else:
                out.append(f"{key_prefix} {b[0]}")
                out.extend(b[1])
        else:
            out.append(f"{key_prefix} {scalar(v, st)}")

    def mapping(self, m, ind):
        sp = " " * ind
        child = ind + self.st.indent
        for k, v in m.items():
            self.comment(ind)
            key = scalar(k, self.st, key_ctx=True)
            if isinstance(v, list) and v and not self.st.seq_indent:
                self.value_lines(f"{sp}{key}:", v, ind)
            else:
                self.value_lines(f"{sp}{key}:", v, child)

    def sequence(self, items, ind):
        sp = " " * ind
        w = 4 if self.st.indent == 4 and self.st.seq_indent else 2
        dash = sp + "-" + " " * (w - 1)
        for item in items:
            if isinstance(item, dict) and item and not (self.anchors_on and item in
                                                        [a for _, a in self.anchors]):
                start = len(self.out)
                saved = self.st.comments
                self.st.comments = 0.0
                first = next(iter(item))
                self.mapping({first: item[first]}, ind + w)
                self.st.comments = saved
                rest = dict(list(item.items())[1:])
                self.mapping(rest, ind + w)
                self.out[start] = dash + self.out[start][ind + w:]
            else:
                self.value_lines(dash.rstrip(), item, ind + w)

    def document(self, obj, anchors=False):
        self.anchors_on = anchors
        self.anchors = []
        self.mapping(obj, 0)
        self.anchors_on = False


def to_yaml(obj, st, anchors=False):
    e = Emitter(st)
    e.document(obj, anchors)
    return "\n".join(e.out) + "\n"


def sort_keys(v):
    if isinstance(v, dict):
        return {k: sort_keys(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [sort_keys(x) for x in v]
    return v


# ---------------------------------------------------------------------------------------------
# Objects


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.day0 = 19700  # days since epoch, ≈ 2023-12
        self.used_words = set()

    def uid(self):
        h = "%032x" % self.rng.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def ts(self, spread=400):
        r = self.rng
        d = self.day0 + r.randrange(spread)
        y, m, dd = civil(d)
        return f"{y:04d}-{m:02d}-{dd:02d}T{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}Z"

    def suffix(self, n):
        return "".join(self.rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))

    def b64(self, n):
        return base64.b64encode(self.rng.getrandbits(8 * n).to_bytes(n, "little")).decode()


def civil(days):
    """Days since 1970-01-01 → (year, month, day)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return y + (m <= 2), m, d


class App:
    def __init__(self, g, idx, ns=None):
        r = g.rng
        self.g = g
        self.word = r.choice(APP_WORDS)
        # the first app of a word gets the bare word, later ones a numbered name
        self.name = f"{self.word}-{idx}" if self.word in g.used_words else self.word
        g.used_words.add(self.word)
        self.part_of = weighted(r, PART_OF)
        self.tier = weighted(r, TIERS)
        self.component = r.choice(COMPONENTS)
        self.team = r.choice(TEAMS)
        self.ns = ns or f"{self.team}-{r.choice(ENVS)}"
        self.managed_by = r.choice(MANAGED_BY)
        v = r.randrange(4)
        if v == 0:
            self.version = f"v{r.randrange(1, 4)}.{r.randrange(30)}.{r.randrange(12)}"
        elif v == 1:
            self.version = f"{2022 + r.randrange(4)}.{r.randrange(1, 13)}.{r.randrange(5)}"
        elif v == 2:
            self.version = f"{r.randrange(1, 9)}.{r.randrange(30)}.{r.randrange(9)}-alpine"
        else:
            self.version = "sha-%07x" % r.getrandbits(28)
        self.image = f"{r.choice(REGISTRIES)}/{self.word}:{self.version}"
        self.workload = weighted(r, [("Deployment", 60), ("StatefulSet", 14), ("DaemonSet", 5),
                                     ("CronJob", 11), ("Job", 4)])
        self.port = r.choice([8080, 8000, 3000, 9000, 5432, 6379, 443, 8443])
        self.hash = g.suffix(r.choice([9, 10]))

    def labels(self, extra=None, minimal=False):
        r = self.g.rng
        m = {"app.kubernetes.io/name": self.word,
             "app.kubernetes.io/instance": self.name}
        if not minimal:
            m["app.kubernetes.io/version"] = self.version
            m["app.kubernetes.io/component"] = self.component
            m["app.kubernetes.io/part-of"] = self.part_of
            m["app.kubernetes.io/managed-by"] = self.managed_by
            if self.tier:
                m["tier"] = self.tier
            if r.random() < 0.3:
                m["team"] = self.team
            if r.random() < 0.1:
                m["cost-center"] = f"cc-{r.randrange(1000, 9999)}"
        if extra:
            m.update(extra)
        return m

    def selector(self):
        return {"app.kubernetes.io/name": self.word, "app.kubernetes.io/instance": self.name}


def meta(g, app, name, labels, live=False, ns=True, annotations=None):
    r = g.rng
    m = {"name": name}
    if ns and app is not None:
        m["namespace"] = app.ns
    if labels:
        m["labels"] = labels
    ann = dict(annotations or {})
    if r.random() < 0.15:
        ann["acme.io/owner"] = r.choice(OWNERS_TEXT)
    if r.random() < 0.08:
        ann["acme.io/description"] = (
            f"Runs {name} for the {app.team if app else 'platform'} team.\n"
            f"Escalation: #{r.choice(TEAMS)}-oncall — \"page\" only if p1.")
    if r.random() < 0.05:
        ann["argocd.argoproj.io/sync-wave"] = str(r.randrange(-5, 10))
    if live:
        m["uid"] = g.uid()
        m["resourceVersion"] = str(r.randrange(10_000_000, 900_000_000))
        m["creationTimestamp"] = g.ts()
        if r.random() < 0.3:
            m["generation"] = r.randrange(1, 40)
        if r.random() < 0.04:
            m["finalizers"] = [r.choice(["kubernetes.io/pvc-protection", "acme.io/drain",
                                          "foregroundDeletion", "orphan"])]
            if r.random() < 0.5:
                m["deletionTimestamp"] = g.ts(spread=500)
                m["deletionGracePeriodSeconds"] = r.choice([0, 30])
    elif r.random() < 0.02:
        m["finalizers"] = ["acme.io/protect"]
    if ann:
        m["annotations"] = ann
    return m


def owner_ref(api, kind, name, uid, controller=True):
    o = {"apiVersion": api, "kind": kind, "name": name, "uid": uid}
    if controller:
        o["controller"] = True
        o["blockOwnerDeletion"] = True
    return [o]


def container(g, app, name=None):
    r = g.rng
    c = {"name": name or app.component, "image": app.image}
    if r.random() < 0.5:
        c["imagePullPolicy"] = r.choice(["IfNotPresent", "Always"])
    if r.random() < 0.4:
        c["args"] = [f"--port={app.port}", "--log-format=json",
                     f"--config=/etc/{app.word}/config.yaml"][: r.randrange(1, 4)]
    if r.random() < 0.2:
        c["command"] = ["/bin/sh", "-c", f"exec /usr/local/bin/{app.word} serve 2>&1 | tee /tmp/log"]
    c["ports"] = [{"containerPort": app.port, "name": "http", "protocol": "TCP"}]
    if r.random() < 0.4:
        c["ports"].append({"containerPort": 9102, "name": "metrics", "protocol": "TCP"})
    env = [{"name": "APP_ENV", "value": app.ns.split("-")[-1]},
           {"name": "OTEL_SERVICE_NAME", "value": app.name}]
    if r.random() < 0.5:
        env.append({"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {
            "name": f"{app.name}-secrets", "key": "db-password"}}})
    if r.random() < 0.3:
        env.append({"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}})
    if r.random() < 0.2:
        env.append({"name": "JAVA_OPTS", "value": "-Xms256m -Xmx1g -XX:+UseG1GC -Dfile.encoding=UTF-8"})
    c["env"] = env
    cpu = r.choice(["50m", "100m", "250m", "500m", "1", "2"])
    mem = r.choice(["64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "4Gi"])
    c["resources"] = {"requests": {"cpu": cpu, "memory": mem}}
    if r.random() < 0.7:
        c["resources"]["limits"] = {"memory": mem}
    if r.random() < 0.6:
        c["readinessProbe"] = {"httpGet": {"path": "/healthz/ready", "port": "http"},
                               "periodSeconds": 10, "failureThreshold": 3}
        c["livenessProbe"] = {"httpGet": {"path": "/healthz", "port": "http"},
                              "initialDelaySeconds": r.choice([5, 10, 30])}
    if r.random() < 0.5:
        c["securityContext"] = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}}
    c["volumeMounts"] = [{"name": "config", "mountPath": f"/etc/{app.word}", "readOnly": True}]
    return c


def pod_spec(g, app, live=False):
    r = g.rng
    cs = [container(g, app)]
    if r.random() < 0.2:
        sidecar = {"name": "envoy", "image": "envoyproxy/envoy:v1.29.1",
                   "ports": [{"containerPort": 15001}],
                   "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}}}
        cs.append(sidecar)
    spec = {"serviceAccountName": app.name, "containers": cs,
            "volumes": [{"name": "config", "configMap": {"name": f"{app.name}-config"}}]}
    if r.random() < 0.2:
        spec["initContainers"] = [{"name": "wait-db", "image": "busybox:1.36",
                                   "command": ["sh", "-c", "until nc -z db 5432; do sleep 2; done"]}]
    if r.random() < 0.3:
        spec["nodeSelector"] = {"kubernetes.io/os": "linux",
                                "node.acme.io/pool": r.choice(["general", "highmem", "spot"])}
    if r.random() < 0.2:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": app.team,
                                "effect": "NoSchedule"}]
    if r.random() < 0.15:
        spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                                "labelSelector": {"matchLabels": app.selector()}}}]}}
    if live:
        spec.update({"dnsPolicy": "ClusterFirst", "restartPolicy": "Always",
                     "schedulerName": "default-scheduler", "securityContext": {},
                     "terminationGracePeriodSeconds": 30, "enableServiceLinks": True,
                     "preemptionPolicy": "PreemptLowerPriority", "priority": 0})
    return spec


def workload(g, app, live=False):
    """The app's controller object (Deployment/StatefulSet/DaemonSet/CronJob/Job)."""
    r = g.rng
    kind = app.workload
    labels = app.labels()
    md = meta(g, app, app.name, labels, live)
    # pod template labels: the object's labels (alias in anchor documents), a superset (`<<`
    # merge), or only the selector's
    tl = weighted(r, [("same", 40), ("more", 30), ("selector", 30)])
    tl = dict(labels) if tl == "same" else labels | {"version": app.version} if tl == "more" \
        else app.selector()
    tmpl = {"metadata": {"labels": tl},
            "spec": pod_spec(g, app, live)}
    if r.random() < 0.3:
        tmpl["metadata"]["annotations"] = {"checksum/config": "%064x" % r.getrandbits(256)}
    if kind in ("Deployment", "StatefulSet", "DaemonSet"):
        spec = {"selector": {"matchLabels": app.selector()}, "template": tmpl}
        if kind != "DaemonSet":
            spec = {"replicas": r.choice([1, 2, 3, 3, 5, 12])} | spec
        if kind == "StatefulSet":
            spec["serviceName"] = f"{app.name}-headless"
            spec["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
                "accessModes": ["ReadWriteOnce"], "storageClassName": r.choice(["fast-ssd", "standard"]),
                "resources": {"requests": {"storage": r.choice(["10Gi", "50Gi", "1Ti"])}}}}]
        if kind == "Deployment" and r.random() < 0.4:
            spec["strategy"] = {"type": "RollingUpdate",
                                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}}
        obj = {"apiVersion": "apps/v1", "kind": kind, "metadata": md, "spec": spec}
        if live:
            n = spec.get("replicas", 3)
            obj["status"] = {"replicas": n, "readyReplicas": n, "observedGeneration": r.randrange(1, 40)}
    elif kind == "CronJob":
        tmpl["spec"]["restartPolicy"] = "OnFailure"
        obj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": md, "spec": {
            "schedule": r.choice(["*/5 * * * *", "0 3 * * *", "30 1 * * 0", "@hourly"]),
            "concurrencyPolicy": "Forbid", "successfulJobsHistoryLimit": 3,
            "jobTemplate": {"spec": {"backoffLimit": 2, "template": tmpl}}}}
    else:
        tmpl["spec"]["restartPolicy"] = "Never"
        obj = {"apiVersion": "batch/v1", "kind": "Job", "metadata": md,
               "spec": {"backoffLimit": 4, "ttlSecondsAfterFinished": 3600, "template": tmpl}}
    return obj


def config_text(g, app):
    r = g.rng
    kind = r.randrange(4)
    if kind == 0:  # YAML config
        lines = ["server:", f"  port: {app.port}", f"  name: {app.name}", "logging:",
                 "  level: info", "  # debug in sandbox only", "features:"]
        for i in range(r.randrange(3, 60)):
            lines.append(f"  flag_{i:03d}: {r.choice(['true', 'false', 'shadow'])}")
        return "\n".join(lines) + "\n"
    if kind == 1:  # JSON inside YAML
        d = {"service": app.name, "upstreams": [
            {"host": f"{w}.{app.ns}.svc.cluster.local", "port": 8080, "weight": r.randrange(100)}
            for w in r.sample(APP_WORDS, r.randrange(1, 12))],
             "retry": {"attempts": 3, "perTryTimeout": "2s"}, "note": "ünïcode ok"}
        return json.dumps(d, indent=2, ensure_ascii=False) + "\n"
    if kind == 2:  # nginx / properties
        lines = ["worker_processes auto;", "events { worker_connections 1024; }", "http {"]
        for i in range(r.randrange(2, 40)):
            lines.append(f"  location /api/v{i % 3}/{r.choice(APP_WORDS)} {{")
            lines.append(f"    proxy_pass http://{r.choice(APP_WORDS)}:{r.choice([80, 8080])};")
            lines.append('    add_header X-Frame-Options "DENY";')
            lines.append("  }")
        lines.append("}")
        return "\n".join(lines) + "\n"
    lines = [f"# {app.name}.properties"]
    for i in range(r.randrange(5, 120)):
        lines.append(f"{r.choice(APP_WORDS)}.setting.{i}={r.choice(['on', 'off', '42', 'a=b', 'x:y'])}")
    return "\n".join(lines)


def companions(g, app, live=False):
    """Service, ServiceAccount, ConfigMap, Secret, and some of Ingress/HPA/PDB/NetworkPolicy/RBAC/CRs."""
    r = g.rng
    out = []
    out.append({"apiVersion": "v1", "kind": "ServiceAccount",
                "metadata": meta(g, app, app.name, app.labels(minimal=True), live)})
    svc = {"apiVersion": "v1", "kind": "Service",
           "metadata": meta(g, app, app.name, app.labels(), live),
           "spec": {"selector": app.selector(),
                    "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}}
    if app.workload == "StatefulSet":
        svc["metadata"]["name"] = f"{app.name}-headless"
        svc["spec"]["clusterIP"] = "None"
    elif live:
        svc["spec"]["clusterIP"] = f"10.{r.randrange(96, 100)}.{r.randrange(256)}.{r.randrange(256)}"
        svc["spec"]["type"] = "ClusterIP"
    out.append(svc)
    data = {"config.yaml" if r.random() < 0.5 else f"{app.word}.conf": config_text(g, app)}
    for _ in range(r.randrange(0, 4)):
        data[r.choice(["LOG_LEVEL", "REGION", "FEATURE_X", "TZ", "GREETING"])] = r.choice(
            ["info", "eu-west-1", "enabled", "Europe/Berlin", "Grüß Gott", "'quoted'", "a: b", "# not a comment"])
    if r.random() < 0.1:
        data["big-dashboard.json"] = json.dumps(
            {"panels": [{"id": i, "title": f"Panel {i}", "expr": f'sum(rate(http_requests_total{{app="{app.name}"}}[5m]))'}
                        for i in range(r.randrange(20, 200))]}, indent=1) + "\n"
    out.append({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": meta(g, app, f"{app.name}-config", app.labels(), live), "data": data})
    if r.random() < 0.7:
        sd = {"db-password": g.b64(r.randrange(12, 40)), "api-key": g.b64(32)}
        if r.random() < 0.2:
            sd["tls.crt"] = g.b64(r.randrange(900, 1800))
            sd["tls.key"] = g.b64(r.randrange(1100, 1700))
        out.append({"apiVersion": "v1", "kind": "Secret",
                    "metadata": meta(g, app, f"{app.name}-secrets", app.labels(minimal=True), live),
                    "type": "kubernetes.io/tls" if "tls.crt" in sd else "Opaque", "data": sd})
    if r.random() < 0.3:
        host = f"{app.word}.{r.choice(['acme.io', 'shop.acme.io', 'internal.acme.net'])}"
        out.append({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                    "metadata": meta(g, app, app.name, app.labels(), live, annotations={
                        "nginx.ingress.kubernetes.io/proxy-body-size": "16m",
                        "cert-manager.io/cluster-issuer": "letsencrypt-prod"}),
                    "spec": {"ingressClassName": "nginx", "tls": [{"hosts": [host], "secretName": f"{app.name}-tls"}],
                             "rules": [{"host": host, "http": {"paths": [
                                 {"path": "/", "pathType": "Prefix",
                                  "backend": {"service": {"name": app.name, "port": {"name": "http"}}}}]}}]}})
    if app.workload == "Deployment" and r.random() < 0.35:
        out.append({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                    "metadata": meta(g, app, app.name, app.labels(), live),
                    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app.name},
                             "minReplicas": 2, "maxReplicas": r.choice([6, 10, 40]),
                             "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                                 "type": "Utilization", "averageUtilization": r.choice([60, 70, 80])}}}]}})
    if r.random() < 0.3:
        out.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                    "metadata": meta(g, app, app.name, app.labels(), live),
                    "spec": {"maxUnavailable": 1, "selector": {"matchLabels": app.selector()}}})
    if r.random() < 0.35:
        out.append({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                    "metadata": meta(g, app, f"{app.name}-ingress", app.labels(), live),
                    "spec": {"podSelector": {"matchLabels": app.selector()}, "policyTypes": ["Ingress"],
                             "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {
                                 "kubernetes.io/metadata.name": "ingress"}}},
                                 {"podSelector": {"matchLabels": {"app.kubernetes.io/part-of": app.part_of}}}],
                                 "ports": [{"port": app.port, "protocol": "TCP"}]}]}})
    if r.random() < 0.25:
        out.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                    "metadata": meta(g, app, app.name, app.labels(), live),
                    "rules": [{"apiGroups": [""], "resources": ["configmaps", "secrets"],
                               "verbs": ["get", "list", "watch"]},
                              {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                               "verbs": ["get", "create", "update"]}]})
        out.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                    "metadata": meta(g, app, app.name, app.labels(), live),
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": app.name},
                    "subjects": [{"kind": "ServiceAccount", "name": app.name, "namespace": app.ns}]})
    if r.random() < 0.3:
        out.append({"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
                    "metadata": meta(g, app, app.name, app.labels(), live),
                    "spec": {"selector": {"matchLabels": app.selector()},
                             "endpoints": [{"port": "metrics", "interval": "30s", "path": "/metrics"}]}})
    if r.random() < 0.12:
        out.append(custom_resource(g, app, live))
    if app.workload == "StatefulSet" and live:
        for i in range(r.randrange(1, 4)):
            out.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                        "metadata": meta(g, app, f"data-{app.name}-{i}", app.labels(minimal=True), live),
                        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast-ssd",
                                 "resources": {"requests": {"storage": "10Gi"}},
                                 "volumeName": f"pvc-{g.uid()}"},
                        "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}}})
    return out


def custom_resource(g, app, live=False):
    r = g.rng
    kind = r.choice(["Storefront", "KafkaTopic", "Pipeline", "Certificate", "PrometheusRule", "VirtualService"])
    md = meta(g, app, f"{app.name}-{kind.lower()}", app.labels(), live)
    if kind == "Storefront":
        return {"apiVersion": "shop.acme.io/v1beta2", "kind": kind, "metadata": md, "spec": {
            "currency": r.choice(["EUR", "USD", "JPY"]), "locales": ["de-DE", "fr-FR", "ja-JP"][: r.randrange(1, 4)],
            "theme": {"primary": "#ff6600", "font": "Noto Sans"}, "backend": {"service": app.name}}}
    if kind == "KafkaTopic":
        return {"apiVersion": "data.acme.io/v1", "kind": kind, "metadata": md, "spec": {
            "partitions": r.choice([3, 12, 48]), "replicas": 3,
            "config": {"retention.ms": str(r.choice([604800000, 86400000])), "cleanup.policy": "compact"}}}
    if kind == "Pipeline":
        return {"apiVersion": "data.acme.io/v1", "kind": kind, "metadata": md, "spec": {
            "steps": [{"name": f"step-{i}", "image": app.image, "script": f"#!/bin/sh\nset -eu\necho step {i}\n"}
                      for i in range(r.randrange(1, 6))]}}
    if kind == "Certificate":
        return {"apiVersion": "cert-manager.io/v1", "kind": kind, "metadata": md, "spec": {
            "secretName": f"{app.name}-tls", "dnsNames": [f"{app.word}.acme.io"],
            "issuerRef": {"name": "letsencrypt-prod", "kind": "ClusterIssuer"}}}
    if kind == "PrometheusRule":
        return {"apiVersion": "monitoring.coreos.com/v1", "kind": kind, "metadata": md, "spec": {"groups": [{
            "name": f"{app.name}.rules", "rules": [{
                "alert": f"{app.word.title().replace('-', '')}HighErrorRate{i}",
                "expr": f'sum(rate(http_requests_total{{app="{app.name}",code=~"5.."}}[5m]))\n  / sum(rate(http_requests_total{{app="{app.name}"}}[5m])) > 0.0{i + 1}\n',
                "for": "10m", "labels": {"severity": r.choice(["warning", "critical"])},
                "annotations": {"summary": f"{app.name}: error rate above {i + 1} %",
                                "runbook_url": f"https://runbooks.acme.io/{app.word}"}}
                for i in range(r.randrange(1, 12))]}]}}
    return {"apiVersion": "networking.istio.io/v1beta1", "kind": kind, "metadata": md, "spec": {
        "hosts": [app.name], "http": [{"route": [{"destination": {"host": app.name, "subset": "v1"}, "weight": 90},
                                                 {"destination": {"host": app.name, "subset": "v2"}, "weight": 10}]}]}}


def live_chain(g, app):
    """Live objects of a running app: controller, ReplicaSet (Deployments), Pods, Jobs; returns (controllers, pods)."""
    r = g.rng
    ctrl = workload(g, app, live=True)
    cuid = ctrl["metadata"]["uid"]
    ctrls = [ctrl]
    pods = []
    kind = ctrl["kind"]
    parent_api, parent_kind, parent_name, parent_uid = "apps/v1", kind, app.name, cuid
    if kind == "Deployment":
        rs_name = f"{app.name}-{app.hash}"
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
              "metadata": meta(g, app, rs_name, app.labels({"pod-template-hash": app.hash}), True),
              "spec": {"replicas": ctrl["spec"]["replicas"],
                       "selector": {"matchLabels": app.selector() | {"pod-template-hash": app.hash}},
                       "template": {"metadata": {"labels": ctrl["spec"]["template"]["metadata"]["labels"]
                                                 | {"pod-template-hash": app.hash}},
                                    "spec": ctrl["spec"]["template"]["spec"]}},
              "status": {"replicas": ctrl["spec"]["replicas"], "observedGeneration": 1}}
        # a few ReplicaSets whose Deployment is not in the snapshot: dangling owner uid
        rs["metadata"]["ownerReferences"] = owner_ref("apps/v1", "Deployment", app.name,
                                                      cuid if r.random() > 0.03 else g.uid())
        ctrls.append(rs)
        parent_kind, parent_name, parent_uid = "ReplicaSet", rs_name, rs["metadata"]["uid"]
    elif kind == "CronJob":
        job_name = f"{app.name}-{r.randrange(28_000_000, 29_000_000)}"
        job = {"apiVersion": "batch/v1", "kind": "Job",
               "metadata": meta(g, app, job_name, app.labels(), True),
               "spec": ctrl["spec"]["jobTemplate"]["spec"],
               "status": {"succeeded": 1, "startTime": g.ts()}}
        job["metadata"]["ownerReferences"] = owner_ref("batch/v1", "CronJob", app.name, cuid)
        ctrls.append(job)
        parent_api, parent_kind, parent_name, parent_uid = "batch/v1", "Job", job_name, job["metadata"]["uid"]
    elif kind == "Job":
        parent_api = "batch/v1"
    n = ctrl["spec"].get("replicas", r.randrange(1, 4)) if kind != "CronJob" else 1
    if kind == "DaemonSet":
        n = r.randrange(3, 9)
    for i in range(min(n, 12)):
        pname = f"{parent_name}-{i}" if kind == "StatefulSet" else f"{parent_name}-{g.suffix(5)}"
        # the pod template of the pods' direct owner (ReplicaSet, Job, or the controller)
        pm = meta(g, app, pname, (ctrls[-1]["spec"].get("template") or {}).get("metadata", {}).get("labels")
                  or app.labels(), True)
        pm["ownerReferences"] = owner_ref(parent_api, parent_kind, parent_name,
                                          parent_uid if r.random() > 0.02 else g.uid())
        phase = weighted(r, [("Running", 90), ("Pending", 4), ("Succeeded", 3), ("Failed", 3)])
        ok = phase == "Running"
        spec = pod_spec(g, app, live=True)
        spec["nodeName"] = f"ip-10-{r.randrange(0, 32)}-{r.randrange(256)}-{r.randrange(256)}.ec2.internal"
        pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": pm, "spec": spec, "status": {
            "phase": phase, "qosClass": "Burstable", "startTime": g.ts(),
            "podIP": f"10.{r.randrange(32, 64)}.{r.randrange(256)}.{r.randrange(256)}",
            "conditions": [{"type": t, "status": "True" if ok or t == "PodScheduled" else "False",
                            "lastProbeTime": None, "lastTransitionTime": g.ts()}
                           for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")],
            "containerStatuses": [{"name": c["name"], "image": c["image"], "ready": ok,
                                   "restartCount": r.choice([0, 0, 0, 1, 7, 112]), "started": ok,
                                   "imageID": f"{c['image'].split(':')[0]}@sha256:{r.getrandbits(256):064x}",
                                   "containerID": f"containerd://{r.getrandbits(256):064x}",
                                   "state": {"running": {"startedAt": g.ts()}} if ok else
                                   {"waiting": {"reason": "CrashLoopBackOff",
                                                "message": "back-off 5m0s restarting failed container"}}}
                                  for c in spec["containers"]]}})
    return ctrls, pods


def event(g, obj):
    r = g.rng
    md = obj["metadata"]
    reason, msg = r.choice([("Scheduled", f"Successfully assigned {md.get('namespace')}/{md['name']} to node"),
                            ("Pulled", 'Container image "x" already present on machine'),
                            ("BackOff", "Back-off restarting failed container"),
                            ("Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503"),
                            ("SuccessfulCreate", f"Created pod: {md['name']}")])
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{md['name']}.{r.getrandbits(64):x}", "namespace": md.get("namespace", "default"),
                         "uid": g.uid(), "resourceVersion": str(r.randrange(10**8)), "creationTimestamp": g.ts()},
            "involvedObject": {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": md["name"],
                               "namespace": md.get("namespace"), "uid": md.get("uid", "")},
            "reason": reason, "message": msg, "type": "Warning" if reason in ("BackOff", "Unhealthy") else "Normal",
            "count": r.randrange(1, 300), "firstTimestamp": g.ts(), "lastTimestamp": g.ts(),
            "source": {"component": "kubelet"}}


def crd(g, group, kind, plural, scope):
    r = g.rng

    def props(depth):
        p = {}
        for i in range(r.randrange(4, 14 if depth < 2 else 6)):
            name = r.choice(["replicas", "image", "config", "selector", "template", "resources", "tls",
                             "endpoints", "retention", "storage", "routes", "policy", "suspend",
                             "schedule", "interval", "labels"]) + ("" if i < 8 else str(i))
            if depth < 3 and r.random() < 0.35:
                p[name] = {"type": "object", "description": f"{name} configures the {kind}'s {name}.\n"
                           "More details in the API reference; fields are validated server-side.",
                           "properties": props(depth + 1)}
            elif r.random() < 0.2:
                p[name] = {"type": "array", "items": {"type": "string"}, "description": f"List of {name}."}
            else:
                t = r.choice(["string", "integer", "boolean"])
                p[name] = {"type": t, "description": f"{name.capitalize()} of the {kind.lower()}."}
                if t == "integer":
                    p[name]["format"] = "int32"
                    p[name]["minimum"] = 0
                if t == "string" and r.random() < 0.3:
                    p[name]["pattern"] = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?)$"
        return p

    versions = []
    for v in r.sample(["v1alpha1", "v1beta1", "v1beta2", "v1"], r.randrange(1, 4)):
        versions.append({"name": v, "served": True, "storage": False,
                         "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                             "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                             "metadata": {"type": "object"},
                             "spec": {"type": "object", "properties": props(0)},
                             "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}},
                         "subresources": {"status": {}},
                         "additionalPrinterColumns": [{"name": "Age", "type": "date",
                                                       "jsonPath": ".metadata.creationTimestamp"}]})
    versions[-1]["storage"] = True
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}", "annotations": {
                "controller-gen.kubebuilder.io/version": "v0.14.0"}},
            "spec": {"group": group, "names": {"kind": kind, "listKind": f"{kind}List", "plural": plural,
                                               "singular": kind.lower()},
                     "scope": scope, "versions": versions}}


def namespaces(g):
    """A cluster's Namespaces: the system ones and three environments of every team."""
    r = g.rng
    out = []
    for ns in SYSTEM_NS + [f"{t}-{e}" for t in TEAMS for e in r.sample(ENVS, 3)]:
        team = ns.split("-")[0]
        labels = {"kubernetes.io/metadata.name": ns}
        if team in TEAMS:
            labels["acme.io/team"] = team
            if r.random() < 0.5:
                labels["app.kubernetes.io/part-of"] = r.choice(["shop", "data", "infra"])
        out.append({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": ns, "labels": labels,
                                 "annotations": {"acme.io/owner": r.choice(OWNERS_TEXT)}}})
    return out


def cluster_rbac(g, i):
    r = g.rng
    name = f"{r.choice(['view', 'edit', 'operator', 'reader', 'aggregate'])}-{r.choice(APP_WORDS)}-{i}"
    rules = [{"apiGroups": r.sample(["", "apps", "batch", "networking.k8s.io", "data.acme.io"], 2),
              "resources": r.sample(["pods", "deployments", "jobs", "ingresses", "pipelines", "secrets",
                                     "configmaps", "nodes"], r.randrange(1, 5)),
              "verbs": r.sample(["get", "list", "watch", "create", "update", "patch", "delete"], r.randrange(1, 7))}
             for _ in range(r.randrange(1, 8))]
    labels = {"app.kubernetes.io/managed-by": r.choice(MANAGED_BY)}
    if r.random() < 0.3:
        labels["rbac.authorization.k8s.io/aggregate-to-view"] = "true"
    cr = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
          "metadata": {"name": name, "labels": labels}, "rules": rules}
    crb = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
           "metadata": {"name": name, "labels": labels},
           "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
           "subjects": [{"kind": "Group", "name": f"acme:{r.choice(TEAMS)}", "apiGroup": "rbac.authorization.k8s.io"},
                        {"kind": "ServiceAccount", "name": "default", "namespace": r.choice(SYSTEM_NS)}]}
    return [cr, crb]


def storage_objects(g, n):
    r = g.rng
    out = []
    for name, prov in [("fast-ssd", "ebs.csi.aws.com"), ("standard", "kubernetes.io/no-provisioner"),
                       ("nfs-shared", "nfs.csi.k8s.io")][: max(1, min(3, n))]:
        out.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                    "metadata": {"name": name, "annotations": {
                        "storageclass.kubernetes.io/is-default-class": "true" if name == "standard" else "false"}},
                    "provisioner": prov, "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer",
                    "allowVolumeExpansion": True, "parameters": {"type": "gp3", "iops": "3000"}})
    while len(out) < n:
        ns = f"{r.choice(TEAMS)}-{r.choice(ENVS)}"
        out.append({"apiVersion": "v1", "kind": "PersistentVolume",
                    "metadata": {"name": f"pvc-{g.uid()}", "uid": g.uid(), "creationTimestamp": g.ts(),
                                 "finalizers": ["kubernetes.io/pv-protection"],
                                 "labels": {"topology.kubernetes.io/zone": r.choice(["eu-west-1a", "eu-west-1b"])}},
                    "spec": {"capacity": {"storage": r.choice(["10Gi", "100Gi"])}, "accessModes": ["ReadWriteOnce"],
                             "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "fast-ssd",
                             "claimRef": {"kind": "PersistentVolumeClaim", "namespace": ns,
                                          "name": f"data-{r.choice(APP_WORDS)}-0", "uid": g.uid()},
                             "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-%017x" % r.getrandbits(68),
                                     "fsType": "ext4"}},
                    "status": {"phase": "Bound"}})
    return out


def node(g):
    r = g.rng
    name = f"ip-10-{r.randrange(32)}-{r.randrange(256)}-{r.randrange(256)}.ec2.internal"
    images = [{"names": [f"{r.choice(REGISTRIES)}/{r.choice(APP_WORDS)}@sha256:{r.getrandbits(256):064x}",
                         f"{r.choice(REGISTRIES)}/{r.choice(APP_WORDS)}:v{r.randrange(9)}.{r.randrange(30)}"],
               "sizeBytes": r.randrange(10**6, 10**9)} for _ in range(r.randrange(10, 40))]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": name, "uid": g.uid(), "resourceVersion": str(r.randrange(10**9)), "creationTimestamp": g.ts(),
        "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                   "node.kubernetes.io/instance-type": r.choice(["m6i.2xlarge", "r6i.4xlarge", "c7g.xlarge"]),
                   "topology.kubernetes.io/zone": r.choice(["eu-west-1a", "eu-west-1b", "eu-west-1c"]),
                   "node.acme.io/pool": r.choice(["general", "highmem", "spot"])},
        "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                        "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"providerID": f"aws:///eu-west-1a/i-{r.getrandbits(60):015x}",
                 "podCIDR": f"10.{r.randrange(32, 64)}.{r.randrange(256)}.0/24"},
        "status": {"capacity": {"cpu": "8", "memory": "32408432Ki", "pods": "110"},
                   "allocatable": {"cpu": "7910m", "memory": "31391600Ki", "pods": "110"},
                   "conditions": [{"type": t, "status": "False" if t != "Ready" else "True",
                                   "lastHeartbeatTime": g.ts(), "lastTransitionTime": g.ts(),
                                   "reason": f"Kubelet{t}", "message": f"kubelet reports {t}"}
                                  for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")],
                   "addresses": [{"type": "InternalIP", "address": f"10.0.{r.randrange(256)}.{r.randrange(256)}"},
                                 {"type": "Hostname", "address": name}],
                   "nodeInfo": {"kubeletVersion": "v1.30.4-eks-a737599", "containerRuntimeVersion": "containerd://1.7.20",
                                "osImage": "Amazon Linux 2023", "architecture": "amd64",
                                "machineID": "%032x" % r.getrandbits(128)},
                   "images": images}}


def strip_ns(obj):
    o = dict(obj)
    o["metadata"] = {k: v for k, v in obj["metadata"].items() if k != "namespace"}
    return o


# ---------------------------------------------------------------------------------------------
# The corpus


class Corpus:
    def __init__(self, n, seed):
        self.n = n
        self.g = Gen(seed)
        self.rng = self.g.rng
        self.files = {}  # relpath -> bytes
        self.objects = 0
        self.matches = 0
        self.terminating = 0
        self.problems = []  # (relpath, what)
        self.non_objects = []  # relpath of kustomization/Chart/values (notes)
        self.app_idx = 0
        self.stats = {}  # top-level directory -> [files, objects, bytes]

    def count(self, objs):
        for o in objs:
            labels = o.get("metadata", {}).get("labels") or {}
            if labels.get("app.kubernetes.io/part-of") in ("shop", "data") and labels.get("tier") != "cache":
                self.matches += 1
            if "deletionTimestamp" in o.get("metadata", {}):
                self.terminating += 1
        self.objects += len(objs)

    def left(self):
        return self.n - self.objects

    def take(self, objs):
        return objs[: max(0, self.left())]

    def put(self, path, text, objs=()):
        r = self.rng
        if path in self.files:
            base, ext = os.path.splitext(path)
            path = f"{base}-{len(self.files)}{ext}"
        data = text
        if not path.endswith(".json") and objs:
            if r.random() < 0.015:
                data = data.replace("\n", "\r\n")
            if r.random() < 0.01:
                data = "\ufeff" + data
        self.files[path] = data.encode("utf-8") if isinstance(data, str) else data
        self.count(list(objs))
        top = path.split("/")[0]
        st = self.stats.setdefault(top, [0, 0, 0])
        st[0] += 1
        st[1] += len(objs)
        st[2] += len(self.files[path])

    # --- writers -----------------------------------------------------------------------------

    def multidoc(self, objs, st, sources=None, lead_sep=None, anchors_pct=0.04):
        r = self.rng
        parts = []
        if lead_sep is None:
            lead_sep = r.random() < 0.5
        for i, o in enumerate(objs):
            head = []
            if i > 0 or lead_sep:
                sep = "---"
                if not sources and r.random() < 0.05:  # separators with a comment or trailing blanks
                    sep = r.choice(["--- # next", "---  ", "--- #" + r.choice(OWNERS_TEXT)])
                head.append(sep)
            if sources:
                head.append(f"# Source: {sources[i]}")
            elif st.comments and r.random() < 0.2:
                head.append(r.choice(COMMENTS))
            parts.append("\n".join(head + [to_yaml(o, st, anchors=r.random() < anchors_pct)]) if head
                         else to_yaml(o, st, anchors=r.random() < anchors_pct))
            if sources and r.random() < 0.03:  # helm: a template that rendered to nothing
                parts.append(f"---\n# Source: {sources[i].rsplit('/', 1)[0]}/tests/test-connection.yaml\n")
        return "".join(p if p.endswith("\n") else p + "\n" for p in parts)

    # --- units -------------------------------------------------------------------------------

    def app_dir(self):
        """apps/<app>/base/<one object per file> + overlays/<env>/ (kustomize) + sometimes rendered output."""
        r, g = self.rng, self.g
        self.app_idx += 1
        app = App(g, self.app_idx)
        root = r.choice(["apps", "apps", "k8s/apps", f"teams/{app.team}",
                         f"tenants/{app.team}/namespaces/{app.ns}/workloads"])
        base = f"{root}/{app.name}/base" if r.random() < 0.7 else f"{root}/{app.name}/manifests/k8s"
        st = Style(r)
        objs = self.take([workload(g, app)] + companions(g, app))
        if not objs:
            return
        ext = r.choice([".yaml", ".yaml", ".yml"])
        # base objects mostly carry no namespace: kustomize sets it
        if r.random() < 0.8:
            objs = [strip_ns(o) for o in objs]
        layout = weighted(r, [("one-per-file", 40), ("grouped", 35), ("all-in-one", 25)])
        groups = {}
        for o in objs:
            if layout == "one-per-file":
                fname = f"{o['kind'].lower()}{ext}" if r.random() < 0.7 else \
                    f"{o['metadata']['name']}-{o['kind'].lower()}{ext}"
            elif layout == "grouped":
                fname = GROUPS.get(o["kind"], "extras") + ext
            else:
                fname = f"{app.name}{ext}"
            groups.setdefault(fname, []).append(o)
        names = list(groups)
        for fname, group in groups.items():
            if len(group) == 1:
                text = to_yaml(group[0], st, anchors=r.random() < 0.04)
                if r.random() < 0.3:
                    text = "---\n" + text
            else:
                text = self.multidoc(group, st)
            if r.random() < 0.2:
                text = f"# {group[0]['kind']} for {app.name} ({r.choice(OWNERS_TEXT)})\n" + text
            self.put(f"{base}/{fname}", text, group)
        self.put(f"{base}/kustomization.yaml",
                 "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
                 + "".join(f"  - {n}\n" for n in names))
        self.non_objects.append(f"{base}/kustomization.yaml")
        envs = r.sample(ENVS, r.randrange(1, 4))
        for env in envs:
            ov = f"{root}/{app.name}/overlays/{env}"
            ns = f"{app.team}-{env}"
            patches = []
            if r.random() < 0.08 and self.left() > 0:
                kind = objs[0]["kind"]
                patch = {"apiVersion": objs[0]["apiVersion"], "kind": kind,
                         "metadata": {"name": app.name}, "spec": {"replicas": r.choice([2, 4, 8])}}
                if kind in ("CronJob", "Job", "DaemonSet"):
                    patch["spec"] = {"template": {"metadata": {"annotations": {"acme.io/env": env}}}} \
                        if kind != "CronJob" else {"suspend": env != "production"}
                self.put(f"{ov}/patch-{kind.lower()}.yaml", to_yaml(patch, st), [patch])
                patches.append(f"patch-{kind.lower()}.yaml")
            kust = (f"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: {ns}\n"
                    f"resources:\n- ../../base\n" + ("patches:\n" + "".join(f"- path: {p}\n" for p in patches)
                                                     if patches else "")
                    + f"commonLabels:\n  acme.io/env: {env}\nimages:\n- name: {app.word}\n  newTag: {dq(app.version)}\n")
            self.put(f"{ov}/kustomization.yaml", kust)
            self.non_objects.append(f"{ov}/kustomization.yaml")
            if r.random() < 0.35 and self.left() > 0:
                # committed `kustomize build` output (rendered manifests pattern)
                rendered = []
                for o in objs:
                    o2 = json.loads(json.dumps(o))
                    o2["metadata"]["namespace"] = ns
                    o2["metadata"].setdefault("labels", {})["acme.io/env"] = env
                    rendered.append(o2)
                rendered = self.take(rendered)
                st2 = Style(r)
                st2.comments = 0.0
                self.put(f"rendered/{env}/{app.ns.split('-')[0]}/{app.name}.yaml",
                         self.multidoc(rendered, st2, lead_sep=False), rendered)

    def helm_release(self, small=False):
        """One Helm release rendered with `helm template`: many apps of one chart, `# Source:` comments."""
        r, g = self.rng, self.g
        chart = r.choice(["platform-services", "shop-backend", "data-pipelines", "observability-stack",
                          "identity", "edge-gateways"])
        ns = r.choice(SYSTEM_NS + [f"{t}-{e}" for t in TEAMS for e in ENVS[:3]])
        objs, sources = [], []
        target = int(r.choice([20, 40, 80, 150, 300, 600, 1200] if not small else [20, 40]) * r.uniform(0.7, 1.3))
        part_of = weighted(r, PART_OF)
        while len(objs) < target and len(objs) < self.left():
            self.app_idx += 1
            app = App(g, self.app_idx, ns=ns)
            app.part_of = part_of if r.random() < 0.8 else app.part_of
            app.managed_by = "Helm"
            for o in [workload(g, app)] + companions(g, app):
                o["metadata"]["labels"] = (o["metadata"].get("labels") or {}) | {
                    "helm.sh/chart": f"{chart}-{app.version.lstrip('v')}"}
                objs.append(o)
                sources.append(f"{chart}/charts/{app.word}/templates/{o['kind'].lower()}.yaml")
        objs = self.take(objs)
        sources = sources[: len(objs)]
        if not objs:
            return
        st = Style(r)
        st.indent, st.seq_indent = 2, r.random() < 0.7
        text = self.multidoc(objs, st, sources=sources, lead_sep=True, anchors_pct=0.02)
        env = r.choice(ENVS)
        self.put(f"platform/{chart}/releases/{env}/{ns}/rendered{'' if r.random() < 0.5 else '-' + str(r.randrange(9))}.yaml",
                 text, objs)

    def snapshot(self, small=False):
        """`kubectl get -o json|yaml` dumps of a live cluster: big List files plus per-kind dumps."""
        r, g = self.rng, self.g
        cluster = r.choice(CLUSTERS)
        day = g.ts()[:10]
        apps = r.randrange(20, 400) if not small else r.randrange(4, 12)
        ctrls, pods, others, events = [], [], [], []
        for _ in range(apps):
            if len(ctrls) + len(pods) + len(others) + len(events) >= self.left():
                break
            self.app_idx += 1
            app = App(g, self.app_idx)
            c, p = live_chain(g, app)
            ctrls += c
            pods += p
            if r.random() < 0.5:
                others += companions(g, app, live=True)
            if r.random() < 0.3:
                events += [event(g, x) for x in p[: r.randrange(1, 4)]]
        root = f"snapshots/{cluster}/{day}"
        for what, objs in [("pods", pods), ("workloads", ctrls), ("config", others), ("events", events)]:
            objs = self.take(objs)
            if not objs:
                continue
            fmt = weighted(r, [("json", 45), ("yaml", 40), ("jsonl-ish", 5), ("typed", 10)])
            if fmt == "json" or (fmt == "typed" and what != "pods"):
                lst = {"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {"resourceVersion": ""}}
                text = json.dumps(lst, indent=4, ensure_ascii=False) + "\n"
                self.put(f"{root}/{what}.json", text, objs)
            elif fmt == "typed":
                lst = {"apiVersion": "v1", "kind": "PodList",
                       "metadata": {"resourceVersion": str(r.randrange(10**9))}, "items": objs}
                self.put(f"{root}/api-v1-{what}.json", json.dumps(lst, separators=(",", ":")) + "\n", objs)
            elif fmt == "jsonl-ish":  # a top-level JSON array (jq -s output)
                self.put(f"{root}/{what}-array.json", json.dumps(objs, indent=2) + "\n", objs)
            else:
                st = Style(r, "kubectl")
                lst = {"apiVersion": "v1", "items": [sort_keys(o) for o in objs], "kind": "List",
                       "metadata": {"resourceVersion": ""}}
                self.put(f"{root}/{what}.yaml", to_yaml(lst, st), objs)

    def cluster(self, cluster):
        r, g = self.rng, self.g
        scale = max(0.02, min(1.0, self.n / 100_000))  # small corpora: fewer nodes, PVs, roles

        def some(lo, hi):
            return max(1, int(r.randrange(lo, hi) * scale))

        root = f"clusters/{cluster}"
        st = Style(r)
        nss = self.take(namespaces(g))
        if nss:
            self.put(f"{root}/namespaces.yaml", self.multidoc(nss, st), nss)
        for i in range(some(10, 60)):
            objs = self.take(cluster_rbac(g, i))
            if not objs:
                return
            if r.random() < 0.5:
                self.put(f"{root}/rbac/{objs[0]['metadata']['name']}.yaml", self.multidoc(objs, st), objs)
            else:
                for o in objs:
                    self.put(f"{root}/rbac/{o['kind'].lower()}s/{o['metadata']['name']}.yaml", to_yaml(o, st), [o])
        for group, kind, plural, scope in CRDS:
            objs = self.take([crd(g, group, kind, plural, scope)])
            if objs:
                self.put(f"{root}/crds/{group}/{plural}.{group}.yaml", to_yaml(objs[0], Style(r)), objs)
        objs = self.take([{"apiVersion": "cert-manager.io/v1", "kind": "ClusterIssuer",
                           "metadata": {"name": "letsencrypt-prod"},
                           "spec": {"acme": {"server": "https://acme-v02.api.letsencrypt.org/directory",
                                             "privateKeySecretRef": {"name": "letsencrypt-prod"},
                                             "solvers": [{"http01": {"ingress": {"ingressClassName": "nginx"}}}]}}},
                          {"apiVersion": "policy.acme.io/v1", "kind": "ClusterGuardrail",
                           "metadata": {"name": "no-latest-tag"},
                           "spec": {"match": {"kinds": ["Deployment", "StatefulSet"]},
                                    "deny": {"imageTag": ["latest"]}}}])
        if objs:
            self.put(f"{root}/policies/cluster-wide.yaml", self.multidoc(objs, st), objs)
        apps = []
        for i in range(some(10, 120)):
            self.app_idx += 1
            app = App(g, self.app_idx)
            apps.append({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                         "metadata": {"name": f"{app.name}-{app.ns}", "namespace": "argocd",
                                      "labels": {"app.kubernetes.io/part-of": app.part_of,
                                                 "acme.io/team": app.team},
                                      "finalizers": ["resources-finalizer.argocd.argoproj.io"]},
                         "spec": {"project": app.team, "source": {
                             "repoURL": "https://git.acme.io/platform/gitops.git", "targetRevision": "main",
                             "path": f"apps/{app.name}/overlays/{app.ns.split('-')[-1]}"},
                             "destination": {"server": "https://kubernetes.default.svc", "namespace": app.ns},
                             "syncPolicy": {"automated": {"prune": True, "selfHeal": True},
                                            "syncOptions": ["CreateNamespace=true", "ServerSideApply=true"]}}})
        objs = self.take(apps)
        if objs:
            self.put(f"{root}/argocd/applications.yaml", self.multidoc(objs, Style(r)), objs)
        objs = self.take(storage_objects(g, 3 + some(2, 80)))
        if objs:
            self.put(f"{root}/storage/storage.yaml", self.multidoc(objs[:3], st), objs[:3])
            for o in objs[3:]:
                self.put(f"{root}/storage/pv/{o['metadata']['name']}.yml", to_yaml(o, st), [o])
        objs = self.take([node(g) for _ in range(some(20, 300))])
        if objs:
            lst = {"apiVersion": "v1", "kind": "NodeList", "metadata": {"resourceVersion": "123"}, "items": objs}
            self.put(f"{root}/nodes/nodes-{g.ts()[:10]}.json", json.dumps(lst, indent=4) + "\n", objs)

    def planted(self):
        """Files kubesift must report but survive, and non-Kubernetes files next to manifests."""
        r = self.rng
        self.files["README.md"] = ("# acme-gitops\n\nGenerated by benches/gen_unseen.py.\n"
                                   "Layout: apps/, platform/, clusters/, snapshots/, rendered/.\n").encode()
        tpl = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"web.fullname\" . }}\n"
               "  labels:\n    {{- include \"web.labels\" . | nindent 4 }}\nspec:\n"
               "  replicas: {{ .Values.replicaCount }}\n  template:\n    spec:\n      containers:\n"
               "        - name: web\n          image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n")
        self.files["charts/web/templates/deployment.yaml"] = tpl.encode()
        self.problems.append(("charts/web/templates/deployment.yaml", "Helm template ({{ }})"))
        self.files["charts/web/Chart.yaml"] = b"apiVersion: v2\nname: web\nversion: 0.3.1\nappVersion: \"1.4.2\"\n"
        self.files["charts/web/values.yaml"] = (b"replicaCount: 2\nimage:\n  repository: ghcr.io/acme/web\n"
                                                b"  tag: \"\"\n")
        self.non_objects += ["charts/web/Chart.yaml", "charts/web/values.yaml"]
        broken = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: half-edited\n  namespace: sre-sandbox\n"
                  "data:\n  key: \"unterminated\n  other: value\n")
        self.files["apps/half-edited/base/configmap.yaml"] = broken.encode()
        self.problems.append(("apps/half-edited/base/configmap.yaml", "broken YAML (unterminated quote, line 7)"))
        self.files["apps/placeholder/base/service.yaml"] = b""
        self.problems.append(("apps/placeholder/base/service.yaml", "empty file"))
        blob = bytes(r.getrandbits(8) for _ in range(4096))
        self.files["clusters/prod-eu-west/secrets/sealed-backup.yaml"] = b"\x00\x01SOPS" + blob
        self.problems.append(("clusters/prod-eu-west/secrets/sealed-backup.yaml", "binary file"))
        self.files["charts/web/web-0.3.1.tgz"] = b"\x1f\x8b\x08\x00" + blob[:512]

    def build(self):
        r = self.rng
        self.planted()
        for c in CLUSTERS:
            if self.left() <= 0:
                break
            self.cluster(c)
        # every kind of unit at least once, small, so that small corpora have them all
        for unit in (self.app_dir, self.snapshot, self.helm_release, self.app_dir):
            if self.left() > 0:
                unit(**({"small": True} if unit != self.app_dir else {}))
        while self.left() > 0:
            u = weighted(r, [("app", 1000), ("helm", 30), ("snapshot", 5)])
            if u == "app":
                self.app_dir()
            elif u == "helm":
                self.helm_release()
            else:
                self.snapshot()

    def write(self, out):
        for rel in sorted(self.files):
            p = os.path.join(out, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(self.files[rel])


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends quietly
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, required=True, help="objects (as kubectl get -f counts them)")
    ap.add_argument("-o", required=True, help="output directory (must be empty unless --force)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    if os.path.isdir(args.o) and os.listdir(args.o) and not args.force:
        sys.exit(f"gen_unseen: {args.o} is not empty (use --force to write into it anyway)")
    t0 = time.perf_counter()
    c = Corpus(args.n, args.seed)
    c.build()
    c.write(args.o)
    nbytes = sum(len(b) for b in c.files.values())
    print(f"{c.objects} objects in {len(c.files)} files, {nbytes} bytes ({nbytes / 1e6:.1f} MB, "
          f"{nbytes / max(1, c.objects):.0f} B/object) under {args.o}; {c.matches} match `{SELECTOR}` "
          f"({100 * c.matches / max(1, c.objects):.1f} %), {c.terminating} terminating; "
          f"{len(c.non_objects)} non-object YAML files (kustomization/Chart/values); "
          f"{time.perf_counter() - t0:.1f} s")
    print("by top-level directory (files, objects, bytes):")
    for top, (f, o, b) in sorted(c.stats.items()):
        print(f"  {top + '/':<12} {f:>6} files {o:>7} objects {b / 1e6:>7.1f} MB {b / max(1, o):>6.0f} B/object")
    print("planted problems:")
    for path, what in c.problems:
        print(f"  {path}: {what}")


if __name__ == "__main__":
    main()
