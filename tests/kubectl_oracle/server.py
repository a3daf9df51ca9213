"""A fake API server serving server-side Tables, so the real kubectl prints them offline."""
import json, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

def col(name, prio=0, fmt=""):
    return {"name": name, "type": "string", "format": fmt, "description": "", "priority": prio}

DEPLOY_COLS = [col("Name", 0, "name"), col("Ready"), col("Up-to-date"), col("Available"), col("Age"),
               col("Containers", 1), col("Images", 1), col("Selector", 1)]
NS_COLS = [col("Name", 0, "name"), col("Status"), col("Age")]
CM_COLS = [col("Name", 0, "name"), col("Data"), col("Age")]

DEPLOYS = [
    ("shop", "a", {"app.kubernetes.io/instance": "x"}, "c", "busybox", "app=a"),
    ("shop", "checkout", {"app.kubernetes.io/instance": "shop-prod", "argocd.argoproj.io/instance": "shop", "tier": "web"}, "web", "nginx:1.21", "app=checkout"),
    ("staging", "payment-gateway-long-name", {}, "gw,sidecar", "gw:2,envoy:1.30", "app=gw"),
]
NAMESPACES = ["shop", "staging"]
WATCH_EVENTS = [
    ("MODIFIED", ("shop", "a", {"app.kubernetes.io/instance": "x"}, "c", "busybox", "app=a")),
    ("ADDED", ("shop", "an-object-with-a-much-longer-name", {}, "c", "busybox", "app=z")),
    ("MODIFIED", ("shop", "b", {}, "c", "busybox", "app=b")),
]
CMS = [("bulk", f"cm-{i:03d}" + ("-a-much-longer-name" if i == 110 else ""), str(i % 3)) for i in range(120)]

def pom(ns, name, labels):
    md = {"name": name, "labels": labels} if labels else {"name": name}
    if ns: md["namespace"] = ns
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": md}

def table(cols, rows):
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "1"},
            "columnDefinitions": cols, "rows": rows}

def res(name, kind, namespaced, short=()):
    return {"name": name, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind,
            "verbs": ["get", "list", "watch"], "shortNames": list(short)}

DISCOVERY = {
    "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [{"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}], "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}]},
    "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": [res("namespaces", "Namespace", False, ["ns"]), res("configmaps", "ConfigMap", True, ["cm"])]},
    "/apis/apps/v1": {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "apps/v1", "resources": [res("deployments", "Deployment", True, ["deploy"])]},
}

def bad_request(msg):
    return 400, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": msg, "reason": "BadRequest", "code": 400}

def field_ok(sel, supported, obj_ns, name):
    if not sel: return True, None
    for term in sel.split(","):
        k, v = term.split("=", 1)
        if k not in supported: return None, k
        val = obj_ns if k == "metadata.namespace" else name
        if val != v: return False, None
    return True, None

class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        path = u.path
        if path in DISCOVERY:
            return self.send(200, DISCOVERY[path])
        parts = path.strip("/").split("/")
        ns = None
        if "namespaces" in parts and parts.index("namespaces") + 2 < len(parts) + 0 and len(parts) > parts.index("namespaces") + 2:
            i = parts.index("namespaces"); ns = parts[i + 1]; parts = parts[:i] + parts[i + 2:]
        resource = parts[-1]
        fs = q.get("fieldSelector", [""])[0]
        if q.get("watch", [""])[0] in ("true", "1"):
            return self.watch(resource)
        if resource == "deployments":
            rows = []
            for (n, name, labels, c, img, sel) in DEPLOYS:
                if ns and n != ns: continue
                ok, bad = field_ok(fs, ["metadata.name", "metadata.namespace"], n, name)
                if bad: return self.send(*bad_request(f'"{bad}" is not a known field selector: only "metadata.name", "metadata.namespace"'))
                if ok: rows.append({"cells": [name, "0/1", 0, 0, "<unknown>", c, img, sel], "object": pom(n, name, labels)})
            return self.send(200, table(DEPLOY_COLS, rows))
        if resource == "namespaces":
            rows = []
            for name in NAMESPACES:
                ok, bad = field_ok(fs, ["metadata.name", "status.phase"], "", name)
                if bad: return self.send(*bad_request(f"field label not supported: {bad}"))
                if ok: rows.append({"cells": [name, "Active", "<unknown>"], "object": pom(None, name, {})})
            return self.send(200, table(NS_COLS, rows))
        if resource == "configmaps":
            rows = [{"cells": [name, int(d), "<unknown>"], "object": pom(n, name, {})} for (n, name, d) in CMS if not ns or n == ns]
            return self.send(200, table(CM_COLS, rows))
        self.send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404, "message": "not found"})
    def watch(self, resource):
        """After the list: WATCH_EVENTS for deployments (a longer name, then one deleted)."""
        events = []
        if resource == "deployments":
            for ev, (n, name, labels, c, img, sel) in WATCH_EVENTS:
                row = {"cells": [name, "1/1", 1, 1, "<unknown>", c, img, sel], "object": pom(n, name, labels)}
                events.append({"type": ev, "object": table(DEPLOY_COLS, [row])})
        data = b"".join(json.dumps(e).encode() + b"\n" for e in events)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
