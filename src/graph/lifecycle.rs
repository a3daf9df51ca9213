//! Lifecycle: Terminating objects, finalizers and what they wait for, foreground deletion
//! blockers, orphaned dependents, and Terminating namespaces.

use super::findings::list_some;
use super::{Adjacency, EdgeKind};
use crate::diagnostic::{Diagnostic, Severity};
use crate::gocompat::fmt::string_slice as go_string_slice;
use crate::model::{Inventory, Object};
use crate::value::{RawRef, Str};

/// `metav1.FinalizerOrphanDependents`.
pub const ORPHAN: &str = "orphan";
/// `metav1.FinalizerDeleteDependents`.
pub const FOREGROUND: &str = "foregroundDeletion";
/// Code of a Terminating Namespace's finding, which lists what is still inside it.
pub const NAMESPACE_TERMINATING: &str = "namespace-terminating";

/// How the garbage collector deletes an object's dependents (from its finalizers, as
/// `attemptToDeleteItem` decides: `orphan` wins over `foregroundDeletion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeletionPolicy {
    Background,
    Foreground,
    Orphan,
}

/// One finalizer of an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalizerInfo {
    pub name: Str,
    /// Where it is declared: `metadata.finalizers` or (Namespace) `spec.finalizers`.
    pub field: &'static str,
    pub explanation: Option<&'static str>,
}

/// Lifecycle facts of one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lifecycle {
    /// `deletionTimestamp`: set means Terminating.
    pub terminating_since: Option<Str>,
    pub grace_period_seconds: Option<i64>,
    pub finalizers: Vec<FinalizerInfo>,
    pub policy: DeletionPolicy,
}

impl Lifecycle {
    /// Whether the object is Terminating.
    pub fn is_terminating(&self) -> bool {
        self.terminating_since.is_some()
    }
}

/// Known finalizers and what removes them (Kubernetes controllers, plus a few very common
/// add-ons that appear in cluster dumps).
const KNOWN: &[(&str, &str)] = &[
    (FOREGROUND, "foreground cascading deletion: the garbage collector deletes the dependents first and removes this finalizer once no dependent with blockOwnerDeletion: true is left"),
    (ORPHAN, "orphan deletion: the garbage collector removes this object's ownerReference from every dependent (leaving them behind), then removes the finalizer"),
    ("kubernetes", "Namespace spec.finalizers: the namespace controller deletes every object in the namespace before the Namespace can go"),
    ("kubernetes.io/pv-protection", "the PersistentVolume is not removed while it is bound to a PersistentVolumeClaim"),
    ("kubernetes.io/pvc-protection", "the PersistentVolumeClaim is not removed while a Pod uses it"),
    ("batch.kubernetes.io/job-tracking", "the Job controller counts this Pod's completion before letting it go"),
    ("service.kubernetes.io/load-balancer-cleanup", "the service controller releases the cloud load balancer first"),
    ("customresourcecleanup.apiextensions.k8s.io", "the CustomResourceDefinition waits until all its custom resources are deleted"),
    ("external-provisioner.volume.kubernetes.io/finalizer", "the CSI external-provisioner deletes the backing volume first"),
    ("kubernetes.io/legacy-service-account-token-cleanup", "the legacy token cleaner handles this Secret first"),
    ("resources-finalizer.argocd.argoproj.io", "Argo CD deletes the Application's managed resources first (cascading delete)"),
];

/// What a known finalizer waits for; `None` for one kubesift does not know.
pub fn explain_finalizer(name: &str) -> Option<&'static str> {
    if let Some((_, why)) = KNOWN.iter().find(|(n, _)| *n == name) {
        return Some(why);
    }
    if name.starts_with("external-attacher/") {
        return Some("the CSI external-attacher detaches the volume first");
    }
    None
}

/// Lifecycle facts of an object.
pub fn lifecycle(obj: &Object) -> Lifecycle {
    let mut finalizers: Vec<FinalizerInfo> = obj
        .finalizers
        .iter()
        .map(|f| FinalizerInfo {
            name: f.clone(),
            field: "metadata.finalizers",
            explanation: explain_finalizer(f),
        })
        .collect();
    if is_namespace(obj) {
        let spec = obj.get_path("spec.finalizers").and_then(RawRef::as_array);
        for f in spec.into_iter().flatten().filter_map(RawRef::as_str) {
            finalizers.push(FinalizerInfo {
                name: Str::from(f),
                field: "spec.finalizers",
                explanation: explain_finalizer(f),
            });
        }
    }
    Lifecycle {
        terminating_since: obj.deletion_timestamp().map(Str::from),
        grace_period_seconds: obj.deletion_grace_period_seconds(),
        finalizers,
        policy: policy(obj),
    }
}

fn policy(obj: &Object) -> DeletionPolicy {
    let has = |n: &str| obj.finalizers.iter().any(|f| &**f == n);
    if has(ORPHAN) {
        DeletionPolicy::Orphan
    } else if has(FOREGROUND) {
        DeletionPolicy::Foreground
    } else {
        DeletionPolicy::Background
    }
}

pub(crate) fn is_namespace(obj: &Object) -> bool {
    obj.id.group.is_empty() && &*obj.id.kind == "Namespace"
}

/// A Namespace is Terminating when deleted or when its status says so.
pub(crate) fn namespace_terminating(obj: &Object) -> bool {
    obj.is_terminating() || obj.get_str("status.phase") == Some("Terminating")
}

/// Codes of the findings [`object_findings`] makes.
pub(super) const OBJECT_CODES: &[&str] = &[
    "finalizers-conflict",
    "terminating",
    "foreground-blocked",
    "orphan-dependents",
];

/// Lifecycle findings for the whole inventory; `dependents` is the owner adjacency by owner.
pub fn findings(inv: &Inventory, dependents: &Adjacency) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for i in 0..inv.objects.len() {
        object_findings(inv, i, dependents, &mut out);
    }
    out.extend(namespaces(inv));
    out
}

/// The findings about object `i` alone and its direct dependents (all but the Terminating
/// Namespace one).
pub(super) fn object_findings(
    inv: &Inventory,
    i: usize,
    dependents: &Adjacency,
    out: &mut Vec<Diagnostic>,
) {
    let obj = &inv.objects[i];
    if let Some(f) = finalizer_conflict(i, obj) {
        out.push(f);
    }
    if obj.is_terminating() {
        out.push(terminating(i, obj));
    }
    let deps = dependents.get(i);
    match policy(obj) {
        DeletionPolicy::Foreground if obj.is_terminating() => {
            out.push(foreground(inv, i, obj, deps));
        }
        DeletionPolicy::Orphan if !deps.is_empty() => {
            let names = names_of(inv, deps.iter().map(|e| e.to_ix()));
            out.push(obj.finding(
                i,
                Severity::Note,
                "orphan-dependents",
                format!(
                    "orphan finalizer: {} dependent(s) will be left behind without this owner: {}",
                    names.len(),
                    list_some(&names, 10)
                ),
            ));
        }
        _ => {}
    }
}

fn finalizer_conflict(i: usize, obj: &Object) -> Option<Diagnostic> {
    let has = |n: &str| obj.finalizers.iter().any(|f| &**f == n);
    (has(ORPHAN) && has(FOREGROUND)).then(|| {
        obj.finding(i, Severity::Error,
            "finalizers-conflict",
            format!(
                "metadata.finalizers: Invalid value: {}: finalizer {ORPHAN} and {FOREGROUND} cannot be both set",
                go_string_slice(Some(&obj.finalizers))
            ),
        )
    })
}

fn terminating(i: usize, obj: &Object) -> Diagnostic {
    let since = obj.deletion_timestamp().unwrap_or_default();
    let mut msg = format!("Terminating since {since}");
    if let Some(g) = obj.deletion_grace_period_seconds() {
        msg.push_str(&format!(" (deletionGracePeriodSeconds: {g})"));
    }
    let lc = lifecycle(obj);
    if lc.finalizers.is_empty() {
        msg.push_str("; no finalizers left");
    } else {
        let names: Vec<String> = lc.finalizers.iter().map(|f| f.name.to_string()).collect();
        msg.push_str(&format!("; waiting on finalizers: {}", names.join(", ")));
    }
    obj.finding(i, Severity::Warning, "terminating", msg)
}

fn foreground(inv: &Inventory, i: usize, obj: &Object, deps: &[super::Edge]) -> Diagnostic {
    let blockers: Vec<usize> = deps
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EdgeKind::Owner {
                    block_owner_deletion: true,
                    ..
                }
            )
        })
        .map(|e| e.to_ix())
        .collect();
    let severity = if blockers.is_empty() {
        Severity::Note
    } else {
        Severity::Warning
    };
    let msg = if blockers.is_empty() {
        format!(
            "in foreground deletion; no dependent with blockOwnerDeletion: true blocks it ({} other dependent(s) are deleted first)",
            deps.len()
        )
    } else {
        let names = names_of(inv, blockers.iter().copied());
        format!(
            "in foreground deletion; blocked by {} dependent(s) with blockOwnerDeletion: true: {}",
            names.len(),
            list_some(&names, 10)
        )
    };
    obj.finding(i, severity, "foreground-blocked", msg)
}

fn names_of(inv: &Inventory, idx: impl Iterator<Item = usize>) -> Vec<String> {
    idx.map(|j| inv.objects[j].id.to_string()).collect()
}

/// Terminating namespaces and what is still inside them.
fn namespaces(inv: &Inventory) -> Vec<Diagnostic> {
    let terminating: Vec<(usize, &Object)> = inv
        .objects
        .iter()
        .enumerate()
        .filter(|(_, o)| is_namespace(o) && namespace_terminating(o))
        .collect();
    if terminating.is_empty() {
        return Vec::new();
    }
    terminating
        .into_iter()
        .map(|(i, _)| namespace_finding(inv, i, 0..inv.objects.len()))
        .collect()
}

/// The finding of Terminating Namespace `i`, which lists the objects of `among`
/// (ascending, a superset of those in the namespace) that are inside it.
pub(super) fn namespace_finding(
    inv: &Inventory,
    i: usize,
    among: impl Iterator<Item = usize>,
) -> Diagnostic {
    let ns = &inv.objects[i];
    let inside: Vec<String> = among
        .map(|j| &inv.objects[j])
        .filter(|o| o.namespaced && o.id.namespace == ns.id.name)
        .map(|o| o.id.to_string())
        .collect();
    let msg = if inside.is_empty() {
        "Namespace is Terminating; nothing of it is left in the input".to_owned()
    } else {
        format!(
            "Namespace is Terminating; {} object(s) still inside: {}",
            inside.len(),
            list_some(&inside, 10)
        )
    };
    ns.finding(i, Severity::Warning, NAMESPACE_TERMINATING, msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn obj(v: Value) -> Object {
        crate::model::test_object(v)
    }

    #[test]
    fn explains_known_finalizers() {
        assert!(explain_finalizer("kubernetes.io/pvc-protection")
            .unwrap()
            .contains("Pod"));
        assert!(explain_finalizer("external-attacher/ebs.csi.aws.com").is_some());
        assert_eq!(explain_finalizer("example.com/mine"), None);
    }

    #[test]
    fn lifecycle_of_terminating_namespace() {
        let o = obj(json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "x", "deletionTimestamp": "2024-05-01T10:00:00Z",
                "deletionGracePeriodSeconds": 0, "finalizers": ["example.com/a"]},
            "spec": {"finalizers": ["kubernetes"]}}));
        let lc = lifecycle(&o);
        assert!(lc.is_terminating());
        assert_eq!(lc.grace_period_seconds, Some(0));
        assert_eq!(lc.finalizers.len(), 2);
        assert_eq!(lc.finalizers[1].field, "spec.finalizers");
        assert!(lc.finalizers[1].explanation.is_some());
        assert_eq!(lc.policy, DeletionPolicy::Background);
    }

    #[test]
    fn orphan_wins_and_conflict_is_reported() {
        let o = obj(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x", "finalizers": ["foregroundDeletion", "orphan"]}}));
        assert_eq!(lifecycle(&o).policy, DeletionPolicy::Orphan);
        let f = finalizer_conflict(0, &o).unwrap();
        assert_eq!(
            &*f.message,
            r#"metadata.finalizers: Invalid value: []string{"foregroundDeletion", "orphan"}: finalizer orphan and foregroundDeletion cannot be both set"#
        );
        assert_eq!(f.severity, Severity::Error);
    }

    #[test]
    fn terminating_message() {
        let o = obj(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "deletionTimestamp": "2024-05-01T10:00:00Z",
                "deletionGracePeriodSeconds": 30, "finalizers": ["example.com/x"]}}));
        assert_eq!(
            &*terminating(0, &o).message,
            "Terminating since 2024-05-01T10:00:00Z (deletionGracePeriodSeconds: 30); waiting on finalizers: example.com/x"
        );
    }

    #[test]
    fn orphan_owner_lists_dependents_left_behind() {
        let inv = crate::model::test_inventory(&[
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs",
                "namespace": "a", "uid": "r1", "deletionTimestamp": "2024-01-01T00:00:00Z",
                "finalizers": ["orphan"]},
                "spec": {"selector": {"matchLabels": {"a": "b"}},
                    "template": {"metadata": {"labels": {"a": "b"}}}}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "a",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "r1"}]}}),
        ]);
        let g = crate::graph::Graph::build(&inv);
        let f: Vec<(&str, &str)> = g.findings().iter().map(|f| (f.code, &*f.message)).collect();
        assert_eq!(
            f,
            vec![
                ("terminating", "Terminating since 2024-01-01T00:00:00Z; waiting on finalizers: orphan"),
                ("orphan-dependents", "orphan finalizer: 1 dependent(s) will be left behind without this owner: Pod/a/p"),
            ]
        );
    }
}
