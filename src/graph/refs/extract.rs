//! Reading references out of one object, one function per kind family.
//!
//! Namespace rules are the API server's: a reference is namespace-local unless its field
//! carries a namespace (RoleBinding subjects, a PV's `claimRef`, webhook and APIService
//! Services, Gateway API refs); cluster-scoped targets have no namespace.

use super::pod::{self, items, str_at, template_site};
use super::{Port, Ref, Site, Target};
use crate::kinds::pod_template;
use crate::model::{group_of, Object};
use crate::value::RawRef;

const RBAC: &str = "rbac.authorization.k8s.io";
const GATEWAY: &str = "gateway.networking.k8s.io";

/// Every by-name reference of `o`, in field order, appended to `out`.
pub fn extract<'a>(o: &'a Object, out: &mut Vec<Ref<'a>>) {
    extract_declaring(o, out, None);
}

/// [`extract`], adding to `ports` the names of the ports the containers of `o` declare, if
/// `o` is a Pod or has a pod template. Whether it is.
pub fn extract_declaring<'a>(
    o: &'a Object,
    out: &mut Vec<Ref<'a>>,
    ports: Option<&mut Vec<&'a str>>,
) -> bool {
    let ns = o.namespace();
    let root = o.raw.view();
    match (&*o.id.group, &*o.id.kind) {
        ("", "Pod") => {
            pod::spec(root.get("spec"), ns, Site::at("spec"), out, ports);
            return true;
        }
        ("", "ServiceAccount") => service_account(root, ns, out),
        ("", "PersistentVolumeClaim") => claim(root, out),
        ("", "PersistentVolume") => volume(root, out),
        (RBAC, "RoleBinding" | "ClusterRoleBinding") => binding(root, ns, out),
        ("networking.k8s.io", "Ingress") => ingress(root, ns, out),
        // Gateway API kinds are namespaced; without their CRD in the input the registry
        // may guess otherwise, and the API server would put them in `default`.
        (GATEWAY, "Gateway") => gateway(root, or_default(ns), out),
        (GATEWAY, "HTTPRoute" | "GRPCRoute" | "TLSRoute" | "TCPRoute" | "UDPRoute") => {
            route(root, or_default(ns), out)
        }
        ("storage.k8s.io", "StorageClass") => storage_class(root, out),
        ("apps", "StatefulSet") => {
            let start = out.len();
            if let Some(path) = pod_template("apps", "StatefulSet") {
                let spec = o.get_path(path).and_then(|t| t.get("spec"));
                pod::spec(spec, ns, template_site(path), out, ports);
                drop_claim_template_volumes(o, spec, start, out);
                return true;
            }
        }
        ("apiregistration.k8s.io", "APIService") => api_service(root, out),
        (
            "admissionregistration.k8s.io",
            "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration",
        ) => webhooks(root, out),
        ("", "Event") => involved(root.get("involvedObject"), "involvedObject", ns, out),
        ("events.k8s.io", "Event") => involved(root.get("regarding"), "regarding", ns, out),
        (group, kind) => {
            if let Some(path) = pod_template(group, kind) {
                let spec = o.get_path(path).and_then(|t| t.get("spec"));
                pod::spec(spec, ns, template_site(path), out, ports);
                return true;
            }
        }
    }
    false
}

fn or_default(ns: &str) -> &str {
    if ns.is_empty() {
        "default"
    } else {
        ns
    }
}

/// A StatefulSet's pod volumes named like one of its `volumeClaimTemplates` are replaced by
/// the claim the controller creates for each Pod: they name no PVC of their own.
fn drop_claim_template_volumes(
    o: &Object,
    spec: Option<RawRef<'_>>,
    start: usize,
    out: &mut Vec<Ref<'_>>,
) {
    let templates: Vec<&str> = items(o.get_path("spec.volumeClaimTemplates"))
        .filter_map(|(_, t)| t.get("metadata").and_then(|m| str_at(m, "name")))
        .collect();
    if templates.is_empty() {
        return;
    }
    let replaced: Vec<u32> = items(spec.and_then(|s| s.get("volumes")))
        .filter(|(_, v)| str_at(*v, "name").is_some_and(|n| templates.contains(&n)))
        .filter_map(|(i, _)| u32::try_from(i).ok())
        .collect();
    let mut tail = out.split_off(start);
    tail.retain(|r| !r.site.volume().is_some_and(|v| replaced.contains(&v)));
    out.append(&mut tail);
}

/// StorageClass → the Secrets its provisioner parameters name (`*secretName` /
/// `*secret-name`, with the matching `*Namespace` / `*namespace` parameter, else `default`).
fn storage_class<'a>(root: RawRef<'a>, out: &mut Vec<Ref<'a>>) {
    let Some(params) = root.get("parameters").and_then(RawRef::as_object) else {
        return;
    };
    for (key, value) in params {
        let Some(name) = value.as_str().filter(|v| !v.is_empty()) else {
            continue;
        };
        let ns_key = if let Some(prefix) = key.strip_suffix("secretName") {
            format!("{prefix}secretNamespace")
        } else if let Some(prefix) = key.strip_suffix("SecretName") {
            format!("{prefix}SecretNamespace")
        } else if let Some(prefix) = key.strip_suffix("secret-name") {
            format!("{prefix}secret-namespace")
        } else {
            continue;
        };
        let ns = params
            .get(&ns_key)
            .and_then(RawRef::as_str)
            .filter(|n| !n.is_empty())
            .unwrap_or("default");
        push(
            out,
            "secret",
            target("", "Secret", ns, name),
            Site::at("parameters"),
            None,
        );
    }
}

fn push<'a>(
    out: &mut Vec<Ref<'a>>,
    rel: &'static str,
    target: Target<'a>,
    site: Site,
    port: Option<Port<'a>>,
) {
    out.push(Ref {
        rel,
        target,
        site,
        optional: false,
        port,
    });
}

fn target<'a>(group: &'a str, kind: &'a str, namespace: &'a str, name: &'a str) -> Target<'a> {
    Target {
        group,
        kind,
        namespace,
        name,
    }
}

/// A cluster-scoped class a spec names by one field: the field (under `spec`), its site,
/// the relationship, and the class's group and kind.
struct ClassField {
    field: &'static str,
    site: &'static str,
    rel: &'static str,
    group: &'static str,
    kind: &'static str,
}

const STORAGE_CLASS: ClassField = ClassField {
    field: "storageClassName",
    site: "spec.storageClassName",
    rel: "storageClass",
    group: "storage.k8s.io",
    kind: "StorageClass",
};
const INGRESS_CLASS: ClassField = ClassField {
    field: "ingressClassName",
    site: "spec.ingressClassName",
    rel: "ingressClass",
    group: "networking.k8s.io",
    kind: "IngressClass",
};
const GATEWAY_CLASS: ClassField = ClassField {
    field: "gatewayClassName",
    site: "spec.gatewayClassName",
    rel: "gatewayClass",
    group: GATEWAY,
    kind: "GatewayClass",
};

/// The reference `spec` makes to the class `c` names, if it names one.
fn class_ref<'a>(spec: RawRef<'a>, c: ClassField, out: &mut Vec<Ref<'a>>) {
    if let Some(name) = str_at(spec, c.field) {
        let t = target(c.group, c.kind, "", name);
        push(out, c.rel, t, Site::at(c.site), None);
    }
}

/// ServiceAccount → its `secrets` and `imagePullSecrets`.
fn service_account<'a>(root: RawRef<'a>, ns: &'a str, out: &mut Vec<Ref<'a>>) {
    for field in ["secrets", "imagePullSecrets"] {
        for (i, s) in items(root.get(field)) {
            if let Some(name) = str_at(s, "name") {
                let site = Site::at("").step(field, i);
                push(out, "secret", target("", "Secret", ns, name), site, None);
            }
        }
    }
}

/// PVC → the PV it binds (`volumeName`) and its StorageClass.
fn claim<'a>(root: RawRef<'a>, out: &mut Vec<Ref<'a>>) {
    let Some(spec) = root.get("spec") else { return };
    if let Some(pv) = str_at(spec, "volumeName") {
        let t = target("", "PersistentVolume", "", pv);
        push(out, "volumeName", t, Site::at("spec.volumeName"), None);
    }
    class_ref(spec, STORAGE_CLASS, out);
}

/// PV → its StorageClass, the claim it is bound to (`claimRef`, namespaced by its own
/// field) and the Secrets its CSI driver is given.
fn volume<'a>(root: RawRef<'a>, out: &mut Vec<Ref<'a>>) {
    let Some(spec) = root.get("spec") else { return };
    class_ref(spec, STORAGE_CLASS, out);
    if let Some(c) = spec.get("claimRef") {
        if let (Some(ns), Some(name)) = (str_at(c, "namespace"), str_at(c, "name")) {
            let t = target("", "PersistentVolumeClaim", ns, name);
            out.push(Ref {
                rel: "claimRef",
                target: t,
                site: Site::at("spec.claimRef"),
                // A claimRef may reserve the volume for a claim not created yet.
                optional: true,
                port: None,
            });
        }
    }
    let Some(csi) = spec.get("csi") else { return };
    for field in [
        "controllerPublishSecretRef",
        "nodeStageSecretRef",
        "nodePublishSecretRef",
        "controllerExpandSecretRef",
        "nodeExpandSecretRef",
    ] {
        if let Some(r) = csi.get(field) {
            if let (Some(ns), Some(name)) = (str_at(r, "namespace"), str_at(r, "name")) {
                let t = target("", "Secret", ns, name);
                push(out, "secret", t, Site::at("spec.csi").tail(field), None);
            }
        }
    }
}

/// RoleBinding/ClusterRoleBinding → its Role or ClusterRole, and the ServiceAccounts among
/// its subjects (a RoleBinding's subject without a namespace is in the binding's namespace).
fn binding<'a>(root: RawRef<'a>, ns: &'a str, out: &mut Vec<Ref<'a>>) {
    if let Some(role) = root.get("roleRef") {
        if let (Some(kind), Some(name)) = (str_at(role, "kind"), str_at(role, "name")) {
            let t = match kind {
                "Role" => Some(target(RBAC, "Role", ns, name)),
                "ClusterRole" => Some(target(RBAC, "ClusterRole", "", name)),
                _ => None,
            };
            if let Some(t) = t {
                push(out, "roleRef", t, Site::at("roleRef"), None);
            }
        }
    }
    for (i, s) in items(root.get("subjects")) {
        if str_at(s, "kind") != Some("ServiceAccount") {
            continue;
        }
        let Some(name) = str_at(s, "name") else {
            continue;
        };
        let sns = str_at(s, "namespace").unwrap_or(ns);
        if sns.is_empty() {
            continue;
        }
        let site = Site::at("").step("subjects", i);
        push(
            out,
            "subject",
            target("", "ServiceAccount", sns, name),
            site,
            None,
        );
    }
}

/// Ingress → the Services of its default backend and rules (with the port they name),
/// resource backends, its IngressClass and its TLS Secrets.
fn ingress<'a>(root: RawRef<'a>, ns: &'a str, out: &mut Vec<Ref<'a>>) {
    let Some(spec) = root.get("spec") else { return };
    if let Some(b) = spec.get("defaultBackend") {
        backend(b, ns, Site::at("spec.defaultBackend"), out);
    }
    for (r, rule) in items(spec.get("rules")) {
        let paths = rule.get("http").and_then(|h| h.get("paths"));
        for (p, path) in items(paths) {
            if let Some(b) = path.get("backend") {
                let site = Site::at("spec")
                    .step("rules", r)
                    .step("http.paths", p)
                    .tail("backend");
                backend(b, ns, site, out);
            }
        }
    }
    class_ref(spec, INGRESS_CLASS, out);
    for (i, tls) in items(spec.get("tls")) {
        if let Some(secret) = str_at(tls, "secretName") {
            let site = Site::at("spec").step("tls", i).tail("secretName");
            push(out, "tls", target("", "Secret", ns, secret), site, None);
        }
    }
}

/// One `IngressBackend`: a Service (port by number or name) or a typed resource.
fn backend<'a>(b: RawRef<'a>, ns: &'a str, site: Site, out: &mut Vec<Ref<'a>>) {
    if let Some(svc) = b.get("service") {
        let Some(name) = str_at(svc, "name") else {
            return;
        };
        let port = svc.get("port").and_then(|p| {
            match (p.get("number").and_then(RawRef::as_i64), str_at(p, "name")) {
                (Some(n), _) if n != 0 => Some(Port::Number(n)),
                (_, Some(name)) => Some(Port::Name(name)),
                _ => None,
            }
        });
        push(out, "backend", target("", "Service", ns, name), site, port);
    } else if let Some(res) = b.get("resource") {
        let group = str_at(res, "apiGroup").unwrap_or("");
        if let (Some(kind), Some(name)) = (str_at(res, "kind"), str_at(res, "name")) {
            push(out, "backend", target(group, kind, ns, name), site, None);
        }
    }
}

/// A Gateway API object reference: group (default `default_group`), kind (default
/// `default_kind`), namespace (default the referrer's), name.
fn gateway_ref<'a>(
    r: RawRef<'a>,
    default_group: &'a str,
    default_kind: &'a str,
    ns: &'a str,
) -> Option<Target<'a>> {
    Some(Target {
        group: r
            .get("group")
            .and_then(RawRef::as_str)
            .unwrap_or(default_group),
        kind: str_at(r, "kind").unwrap_or(default_kind),
        namespace: str_at(r, "namespace").unwrap_or(ns),
        name: str_at(r, "name")?,
    })
}

/// Gateway → its GatewayClass and the certificate Secrets of its listeners.
fn gateway<'a>(root: RawRef<'a>, ns: &'a str, out: &mut Vec<Ref<'a>>) {
    let Some(spec) = root.get("spec") else { return };
    class_ref(spec, GATEWAY_CLASS, out);
    for (l, listener) in items(spec.get("listeners")) {
        let certs = listener.get("tls").and_then(|t| t.get("certificateRefs"));
        for (c, cert) in items(certs) {
            if let Some(t) = gateway_ref(cert, "", "Secret", ns) {
                let site = Site::at("spec")
                    .step("listeners", l)
                    .step("tls.certificateRefs", c);
                push(out, "tls", t, site, None);
            }
        }
    }
}

/// A route → its parent Gateways and its backends (Services by default, with their port).
fn route<'a>(root: RawRef<'a>, ns: &'a str, out: &mut Vec<Ref<'a>>) {
    let Some(spec) = root.get("spec") else { return };
    for (i, p) in items(spec.get("parentRefs")) {
        if let Some(t) = gateway_ref(p, GATEWAY, "Gateway", ns) {
            push(
                out,
                "parentRef",
                t,
                Site::at("spec").step("parentRefs", i),
                None,
            );
        }
    }
    for (r, rule) in items(spec.get("rules")) {
        for (b, backend) in items(rule.get("backendRefs")) {
            if let Some(t) = gateway_ref(backend, "", "Service", ns) {
                let port = backend
                    .get("port")
                    .and_then(RawRef::as_i64)
                    .map(Port::Number);
                let site = Site::at("spec").step("rules", r).step("backendRefs", b);
                push(out, "backendRef", t, site, port);
            }
        }
    }
}

/// APIService → the Service serving it (port 443 unless set).
fn api_service<'a>(root: RawRef<'a>, out: &mut Vec<Ref<'a>>) {
    let Some(svc) = root.get("spec").and_then(|s| s.get("service")) else {
        return;
    };
    if let (Some(ns), Some(name)) = (str_at(svc, "namespace"), str_at(svc, "name")) {
        let port = svc.get("port").and_then(RawRef::as_i64).unwrap_or(443);
        let t = target("", "Service", ns, name);
        push(
            out,
            "service",
            t,
            Site::at("spec.service"),
            Some(Port::Number(port)),
        );
    }
}

/// Webhook configurations → the Service of each webhook's `clientConfig` (port 443 unless
/// set).
fn webhooks<'a>(root: RawRef<'a>, out: &mut Vec<Ref<'a>>) {
    for (i, w) in items(root.get("webhooks")) {
        let Some(svc) = w.get("clientConfig").and_then(|c| c.get("service")) else {
            continue;
        };
        if let (Some(ns), Some(name)) = (str_at(svc, "namespace"), str_at(svc, "name")) {
            let port = svc.get("port").and_then(RawRef::as_i64).unwrap_or(443);
            let site = Site::at("")
                .step("webhooks", i)
                .tail("clientConfig.service");
            let t = target("", "Service", ns, name);
            push(out, "service", t, site, Some(Port::Number(port)));
        }
    }
}

/// Event → the object it is about (the namespace is fixed while linking, by the kind's
/// scope).
fn involved<'a>(r: Option<RawRef<'a>>, field: &'static str, ns: &'a str, out: &mut Vec<Ref<'a>>) {
    let Some(r) = r else { return };
    let (Some(kind), Some(name)) = (str_at(r, "kind"), str_at(r, "name")) else {
        return;
    };
    let group = group_of(r.get("apiVersion").and_then(RawRef::as_str).unwrap_or(""));
    let t = target(group, kind, str_at(r, "namespace").unwrap_or(ns), name);
    out.push(Ref {
        rel: "involvedObject",
        target: t,
        site: Site::at(field),
        optional: true,
        port: None,
    });
}
