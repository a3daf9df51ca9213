//! Findings about references, worded as the component that would hit the problem says it
//! (kubelet, admission, the RBAC authorizer, ingress controllers), prefixed with the field.
//!
//! Targets the cluster itself provides (StorageClasses, IngressClasses, RuntimeClasses,
//! PVs, built-in ClusterRoles and PriorityClasses, the `kube-root-ca.crt` ConfigMap, the
//! `default` ServiceAccount) are never reported missing. Missing Secrets are notes: they are
//! often created out of band (sealed secrets, external-secrets, CI).
//!
//! An object whose controller is in the input and has a pod template (a ReplicaSet of a
//! Deployment, a Pod of a ReplicaSet) reports no missing target: its controller's template
//! holds the same reference and reports it once (see `link.rs`).

use std::fmt::Write;

use rustc_hash::FxHashSet;

use super::pod::items;
use super::{Port, Ref};
use crate::diagnostic::{Diagnostic, Severity};
use crate::gocompat::quote::Quoted;
use crate::graph::Graph;
use crate::kinds::pod_template;
use crate::model::{Inventory, Object, ObjectId};
use crate::value::RawRef;

/// A reference names an object the input does not hold.
pub const MISSING: &str = "ref-missing";
/// A backend names a port its Service does not expose.
pub const PORT: &str = "ref-port-missing";
/// A Service's named `targetPort` is declared by no container it selects.
pub const TARGET_PORT: &str = "ref-target-port-undeclared";
/// A ConfigMap, Secret or ServiceAccount nothing of the input uses.
pub const UNUSED: &str = "ref-unused";

/// Whether a finding comes from references (a graph patch hands those to the reference
/// patch, which keeps or recomputes each).
pub fn is_ref_finding(code: &str) -> bool {
    matches!(code, MISSING | PORT | TARGET_PORT | UNUSED)
}

/// ClusterRoles every cluster has (the `system:` ones aside).
const BUILTIN_CLUSTER_ROLES: [&str; 4] = ["cluster-admin", "admin", "edit", "view"];
/// Roles the API server's bootstrap policy creates in `kube-system` (the `system:` ones
/// aside).
const BUILTIN_ROLES: [&str; 1] = ["extension-apiserver-authentication-reader"];

/// The finding for a missing, non-optional target of `r`, if that target is reported.
pub fn missing(i: usize, o: &Object, r: &Ref<'_>) -> Option<Diagnostic> {
    let t = r.target;
    let (name, site) = (Quoted(t.name), r.site);
    // A target in another namespace is named with it.
    let qualified = || {
        if t.namespace != o.namespace() && !t.namespace.is_empty() {
            Quoted(&format!("{}/{}", t.namespace, t.name)).to_string()
        } else {
            name.to_string()
        }
    };
    let (severity, message) = match (t.group, t.kind) {
        ("", "ConfigMap") if t.name == "kube-root-ca.crt" => return None,
        ("", "ConfigMap") => (
            Severity::Warning,
            format!("{site}: configmap {name} not found"),
        ),
        ("", "Secret") => (
            Severity::Note,
            format!("{site}: secret {} not found", qualified()),
        ),
        ("", "ServiceAccount") if t.name == "default" => return None,
        ("", "ServiceAccount") if r.rel == "serviceAccount" => (
            Severity::Warning,
            format!(
                "{site}: error looking up service account {}/{}: serviceaccount {name} not found",
                t.namespace, t.name
            ),
        ),
        ("", "ServiceAccount") => (
            Severity::Note,
            format!("{site}: serviceaccount {} not found", qualified()),
        ),
        ("", "PersistentVolumeClaim") => (
            Severity::Warning,
            format!("{site}: persistentvolumeclaim {name} not found"),
        ),
        ("scheduling.k8s.io", "PriorityClass") if t.name.starts_with("system-") => return None,
        ("scheduling.k8s.io", "PriorityClass") => (
            Severity::Warning,
            format!("{site}: no PriorityClass with name {} was found", t.name),
        ),
        ("rbac.authorization.k8s.io", "Role")
            if t.namespace == "kube-system"
                && (t.name.starts_with("system:") || BUILTIN_ROLES.contains(&t.name)) =>
        {
            return None
        }
        ("rbac.authorization.k8s.io", "Role") => (
            Severity::Warning,
            format!("{site}: role.rbac.authorization.k8s.io {name} not found"),
        ),
        ("rbac.authorization.k8s.io", "ClusterRole")
            if t.name.starts_with("system:") || BUILTIN_CLUSTER_ROLES.contains(&t.name) =>
        {
            return None
        }
        ("rbac.authorization.k8s.io", "ClusterRole") => (
            Severity::Warning,
            format!("{site}: clusterrole.rbac.authorization.k8s.io {name} not found"),
        ),
        ("", "Service") if t.namespace == "default" && t.name == "kubernetes" => return None,
        ("", "Service") if &*o.id.kind == "APIService" => (
            Severity::Warning,
            format!(
                "{site}: service/{} in {} is not present",
                t.name,
                Quoted(t.namespace)
            ),
        ),
        ("", "Service") => (
            Severity::Warning,
            format!("{site}: service {} not found", qualified()),
        ),
        ("gateway.networking.k8s.io", "Gateway") => (
            Severity::Note,
            format!("{site}: gateway {} not found", qualified()),
        ),
        _ => return None,
    };
    Some(o.finding(i, severity, MISSING, message))
}

/// A backend's port that `svc` does not expose (ingress-gce's wording).
pub fn port(i: usize, o: &Object, r: &Ref<'_>, port: Port<'_>, svc: &Object) -> Option<Diagnostic> {
    if svc.get_str("spec.type") == Some("ExternalName") {
        return None;
    }
    let ports = svc.get_path("spec.ports");
    let exposed = items(ports).any(|(_, p)| match port {
        Port::Number(n) => p.get("port").and_then(RawRef::as_i64) == Some(n),
        Port::Name(name) => p.get("name").and_then(RawRef::as_str) == Some(name),
    });
    if exposed {
        return None;
    }
    let shown = match port {
        Port::Number(n) => n.to_string(),
        Port::Name(name) => name.to_string(),
    };
    let svc_name = format!("{}/{}", svc.namespace(), svc.name());
    Some(o.finding(
        i,
        Severity::Warning,
        PORT,
        format!(
            "{}: could not find port {} in service {}",
            r.site,
            Quoted(&shown),
            Quoted(&svc_name)
        ),
    ))
}

/// A Service's named `targetPort`s that no container of the Pods and pod templates it
/// selects declares (the endpoints controller finds no port for them, so the Service gets
/// no endpoint). One selected object declaring it is enough: a selector that also catches
/// unrelated Pods is another problem. `declares` tells whether object `t` declares a port
/// (as [`declares`]).
pub fn target_ports(
    inv: &Inventory,
    graph: &Graph,
    i: usize,
    svc: &Object,
    declares: &dyn Fn(usize, &Object, &str) -> Option<bool>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let spec = svc.raw.get("spec");
    if spec.and_then(|s| s.get("type")).and_then(RawRef::as_str) == Some("ExternalName") {
        return out;
    }
    for (p, port) in items(spec.and_then(|s| s.get("ports"))) {
        let Some(name) = port.get("targetPort").and_then(RawRef::as_str) else {
            continue;
        };
        if name.is_empty() || name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let mut lacking: Vec<&Object> = Vec::new();
        let mut declared = false;
        for e in graph.selects(i) {
            let Some(target) = inv.objects.get(e.to_ix()) else {
                continue;
            };
            match declares(e.to_ix(), target, name) {
                Some(true) => {
                    declared = true;
                    break;
                }
                Some(false) if !lacking.iter().any(|l| l.id == target.id) => lacking.push(target),
                _ => {}
            }
        }
        if !declared && !lacking.is_empty() {
            // Only the names shown are formatted, into the message itself.
            let mut message = format!("spec.ports[{p}].targetPort: no container of ");
            for (k, o) in lacking.iter().take(3).enumerate() {
                let sep = if k == 0 { "" } else { ", " };
                let _ = write!(message, "{sep}{}", o.id);
            }
            if lacking.len() > 3 {
                let _ = write!(message, " and {} more", lacking.len() - 3);
            }
            let _ = write!(message, " declares a port named {}", Quoted(name));
            out.push(svc.finding(i, Severity::Warning, TARGET_PORT, message));
        }
    }
    out
}

/// Whether a container of a Pod or pod template declares a port `name` (`None` for other
/// kinds). Sidecars (init containers) count.
pub fn declares(o: &Object, name: &str) -> Option<bool> {
    let spec = match (&*o.id.group, &*o.id.kind) {
        ("", "Pod") => o.get_path("spec"),
        (g, k) => o.get_path(pod_template(g, k)?).and_then(|t| t.get("spec")),
    };
    let Some(spec) = spec else { return Some(false) };
    Some(["containers", "initContainers"].iter().any(|list| {
        items(spec.get(list)).any(|(_, c)| {
            items(c.get("ports")).any(|(_, p)| p.get("name").and_then(RawRef::as_str) == Some(name))
        })
    }))
}

/// Secret types that no object references by design.
const UNREFERENCED_SECRET_TYPES: [&str; 3] = [
    "kubernetes.io/service-account-token",
    "bootstrap.kubernetes.io/token",
    "helm.sh/release.v1",
];

/// ConfigMaps, Secrets and ServiceAccounts nothing uses (popeye's POP-400), except those
/// the cluster or a controller uses without a reference (`kube-root-ca.crt`, the `default`
/// ServiceAccount, token Secrets) and those a custom resource of their namespace names in
/// any field (an operator may use them: `serviceAccountName` of a Prometheus, …).
///
/// Whether an object is used depends on the references naming it, `used(i)`, on its
/// duplicates (another file's copy may be used) and on what mentions it in its namespace:
/// `objects` (ascending) hold every duplicate of each of them, and `mentioners` gives,
/// for the namespaces of the unused candidates, every object of those namespaces (or
/// more), ascending. A patch passes only the objects whose note can change.
pub fn unused<M: IntoIterator<Item = usize>>(
    inv: &Inventory,
    objects: &[usize],
    used: impl Fn(usize) -> bool,
    mentioners: impl FnOnce(&FxHashSet<&str>) -> M,
) -> Vec<Diagnostic> {
    let mut idle: Vec<(usize, &'static str)> = objects
        .iter()
        .filter_map(|&i| Some((i, unused_noun(inv.objects.get(i)?)?)))
        .filter(|&(i, _)| !used(i))
        .collect();
    if idle.is_empty() {
        return Vec::new();
    }
    // By identity: a duplicate of a used object (another file's copy) is used too.
    let ids: FxHashSet<&ObjectId> = idle.iter().map(|&(i, _)| &inv.objects[i].id).collect();
    let used_ids: FxHashSet<&ObjectId> = objects
        .iter()
        .filter(|&&i| used(i))
        .filter_map(|&i| inv.objects.get(i))
        .map(|o| &o.id)
        .filter(|id| may_be_unused(id) && ids.contains(id))
        .collect();
    idle.retain(|&(i, _)| !used_ids.contains(&inv.objects[i].id));
    if idle.is_empty() {
        return Vec::new();
    }
    // Only the names of what is left are looked for, in their namespaces.
    let mut wanted: FxHashSet<(&str, &str)> = idle
        .iter()
        .map(|&(i, _)| (inv.objects[i].namespace(), inv.objects[i].name()))
        .collect();
    let namespaces: FxHashSet<&str> = wanted.iter().map(|w| w.0).collect();
    let mut mentioned: FxHashSet<(&str, &str)> = FxHashSet::default();
    for o in mentioners(&namespaces)
        .into_iter()
        .filter_map(|i| inv.objects.get(i))
    {
        if wanted.is_empty() {
            break;
        }
        if !namespaces.contains(o.namespace()) {
            continue;
        }
        let ns = o.namespace();
        mentions(o, &mut |word| {
            if wanted.remove(&(ns, word)) {
                mentioned.insert((ns, word));
            }
        });
    }
    idle.into_iter()
        .filter(|&(i, _)| {
            let o = &inv.objects[i];
            !mentioned.contains(&(o.namespace(), o.name()))
        })
        .map(|(i, noun)| {
            inv.objects[i].finding(
                i,
                Severity::Note,
                UNUSED,
                format!("Used? Unable to locate resource reference: no object of the input uses this {noun}"),
            )
        })
        .collect()
}

/// Whether an object of this identity can get an unused note (its kind's): a reference to
/// it changes the notes of its namespace.
pub fn may_be_unused(id: &ObjectId) -> bool {
    id.group.is_empty() && matches!(&*id.kind, "ConfigMap" | "Secret" | "ServiceAccount")
}

/// The noun of an unused note about `o`, if `o` gets one when nothing uses it.
fn unused_noun(o: &Object) -> Option<&'static str> {
    if !o.id.group.is_empty() {
        return None;
    }
    match &*o.id.kind {
        "ConfigMap" if o.name() != "kube-root-ca.crt" => Some("ConfigMap"),
        "Secret" if !token_like(o) => Some("Secret"),
        "ServiceAccount" if o.name() != "default" => Some("ServiceAccount"),
        _ => None,
    }
}

fn token_like(secret: &Object) -> bool {
    secret
        .get_str("type")
        .is_some_and(|t| UNREFERENCED_SECRET_TYPES.contains(&t))
        || secret
            .annotations()
            .get("kubernetes.io/service-account.name")
            .is_some()
}

/// Names `o` may use without a reference field, in its namespace: strings anywhere in a
/// custom resource (bounded per object), and the words of container `args` and `command`
/// (`--configmap=$(POD_NAMESPACE)/ingress-nginx-controller`).
pub fn mentions<'a>(o: &'a Object, found: &mut impl FnMut(&'a str)) {
    if crate::kinds::is_builtin(&o.id.group, &o.id.kind) {
        command_words(o, found);
        return;
    }
    let mut budget = 10_000usize;
    let mut stack = vec![o.raw.view()];
    while let Some(v) = stack.pop() {
        if budget == 0 {
            break;
        }
        budget -= 1;
        if let Some(s) = v.as_str() {
            found(s);
        } else if let Some(a) = v.as_array() {
            stack.extend(a.iter());
        } else if let Some(m) = v.as_object() {
            stack.extend(m.iter().map(|(_, v)| v));
        }
    }
}

/// The words (runs of name characters) of the `args` and `command` of a Pod's or pod
/// template's containers.
fn command_words<'a>(o: &'a Object, found: &mut impl FnMut(&'a str)) {
    let spec = match (&*o.id.group, &*o.id.kind) {
        ("", "Pod") => o.get_path("spec"),
        (g, k) => pod_template(g, k)
            .and_then(|p| o.get_path(p))
            .and_then(|t| t.get("spec")),
    };
    let Some(spec) = spec else { return };
    for list in ["initContainers", "containers"] {
        for (_, c) in items(spec.get(list)) {
            for field in ["args", "command"] {
                for (_, word) in items(c.get(field)) {
                    let Some(text) = word.as_str() else { continue };
                    let is_name = |ch: char| ch.is_ascii_alphanumeric() || ch == '-' || ch == '.';
                    text.split(|ch: char| !is_name(ch))
                        .filter(|w| !w.is_empty())
                        .for_each(&mut *found);
                }
            }
        }
    }
}
