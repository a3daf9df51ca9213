//! ownerReference edges and the garbage collector's rules about them.
//!
//! Resolution follows `pkg/controller/garbagecollector`: the GC knows owners by uid and
//! checks them by fetching the owner by name in the dependent's namespace (no namespace for
//! a cluster-scoped owner kind) and comparing uids. Manifests in git usually have no uids,
//! so without one kubesift resolves by (group, kind, namespace, name) and says so.
//!
//! The rules the API server applies to a reference on write (required fields, one
//! controller) need no other object: they are `crate::validate::owners`.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::firsts::{id_hash, is_id, Firsts};
use super::keys::hash;
use super::{Edge, EdgeKind};
use crate::diagnostic::{Diagnostic, Severity};
use crate::gocompat::quote::Quoted;
use crate::model::{Inventory, Object, OwnerRef};
use crate::value::Str;

/// Code of a reference whose owner is not in the input (or is, with another uid).
pub const DANGLING: &str = "owner-dangling";
/// Code of a reference whose owner is in another namespace.
pub const OTHER_NAMESPACE: &str = "owner-other-namespace";
/// Code of a reference whose uid belongs to an object with other coordinates.
const UID_MISMATCH: &str = "owner-uid-mismatch";
/// Code of a cluster-scoped object's reference to a namespaced owner.
const CLUSTER_SCOPED_DEPENDENT: &str = "owner-cluster-scoped-dependent";
/// Codes of the findings [`resolve`] makes (about the dependent).
pub(super) const CODES: &[&str] = &[
    DANGLING,
    OTHER_NAMESPACE,
    UID_MISMATCH,
    CLUSTER_SCOPED_DEPENDENT,
];

/// Counts of ownerReferences by outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OwnerStats {
    /// References resolved to an object of the input by uid.
    pub by_uid: usize,
    /// References resolved by group, kind, namespace and name (no usable uid).
    pub by_name: usize,
    /// References to an owner that is not in the input.
    pub dangling: usize,
    /// References the GC rejects or treats as absent although something similar exists
    /// (other namespace, cluster-scoped dependent, uid of another object, missing fields).
    pub invalid: usize,
}

impl OwnerStats {
    /// References resolved either way.
    pub fn resolved(&self) -> usize {
        self.by_uid + self.by_name
    }

    /// Both counts added up.
    pub fn plus(self, other: &OwnerStats) -> OwnerStats {
        OwnerStats {
            by_uid: self.by_uid + other.by_uid,
            by_name: self.by_name + other.by_name,
            dangling: self.dangling + other.dangling,
            invalid: self.invalid + other.invalid,
        }
    }

    /// `other` taken away (a count never goes below 0).
    pub(super) fn minus(self, other: &OwnerStats) -> OwnerStats {
        OwnerStats {
            by_uid: self.by_uid.saturating_sub(other.by_uid),
            by_name: self.by_name.saturating_sub(other.by_name),
            dangling: self.dangling.saturating_sub(other.dangling),
            invalid: self.invalid.saturating_sub(other.invalid),
        }
    }

    /// What one object's `refs` ownerReferences count for, from what [`resolve`] made of
    /// them: its owner edges and its `dangling` findings; the rest are invalid.
    pub(super) fn of_object(owner_edges: &[Edge], dangling: usize, refs: usize) -> OwnerStats {
        let by_uid = owner_edges
            .iter()
            .filter(|e| matches!(e.kind, EdgeKind::Owner { by_uid: true, .. }))
            .count();
        let by_name = owner_edges.len() - by_uid;
        OwnerStats {
            by_uid,
            by_name,
            dangling,
            invalid: refs.saturating_sub(owner_edges.len() + dangling),
        }
    }

    /// Whether nothing is counted.
    pub(super) fn is_zero(&self) -> bool {
        *self == OwnerStats::default()
    }
}

/// Lookup tables over the inventory (first positions by key, see `firsts.rs`).
struct Index<'a> {
    objects: &'a [Object],
    by_uid: Firsts,
    by_id: Firsts,
    /// (group, kind, name) → first object in any namespace, for the cross-namespace hint.
    by_name_any_ns: Firsts,
}

impl<'a> Index<'a> {
    /// Over the objects at `positions` (ascending, so the first of equal keys is the first
    /// loaded).
    fn build(objects: &'a [Object], positions: impl ExactSizeIterator<Item = usize>) -> Index<'a> {
        let len = positions.len();
        let mut by_uid = Firsts::with_capacity(len);
        let mut by_id = Firsts::with_capacity(len);
        let mut by_name_any_ns = Firsts::with_capacity(len);
        for i in positions {
            let o = &objects[i];
            if let Some(uid) = o.uid() {
                by_uid.insert(hash(uid), i, |j| objects[j].uid() == Some(uid));
            }
            let id = &o.id;
            let (g, k, ns, name) = (&*id.group, &*id.kind, &*id.namespace, &*id.name);
            by_id.insert(id_hash(g, k, ns, name), i, |j| {
                is_id(&objects[j].id, g, k, ns, name)
            });
            by_name_any_ns.insert(hash(&(g, k, name)), i, |j| {
                is_id(&objects[j].id, g, k, &objects[j].id.namespace, name)
            });
        }
        Index {
            objects,
            by_uid,
            by_id,
            by_name_any_ns,
        }
    }

    /// The first object with this uid.
    fn uid(&self, uid: &str) -> Option<usize> {
        self.by_uid
            .get(hash(uid), |i| self.objects[i].uid() == Some(uid))
    }

    /// The first object with this identity.
    fn id(&self, group: &str, kind: &str, ns: &str, name: &str) -> Option<usize> {
        self.by_id.get(id_hash(group, kind, ns, name), |i| {
            is_id(&self.objects[i].id, group, kind, ns, name)
        })
    }

    /// The first object with this group, kind and name in any namespace.
    fn name_any_ns(&self, group: &str, kind: &str, name: &str) -> Option<usize> {
        self.by_name_any_ns.get(hash(&(group, kind, name)), |i| {
            let id = &self.objects[i].id;
            is_id(id, group, kind, &id.namespace, name)
        })
    }
}

/// How one ownerReference resolved.
enum Outcome {
    Edge { owner: usize, by_uid: bool },
    Dangling(String),
    Invalid(&'static str, String),
}

/// Owner edges (owner → dependent), findings, and counts by the dependent's namespace
/// (`""` for a cluster-scoped dependent).
pub fn resolve(inv: &Inventory) -> (Vec<Edge>, Vec<Diagnostic>, HashMap<Str, OwnerStats>) {
    let all = 0..inv.objects.len();
    resolve_among(inv, all.clone(), all)
}

/// [`resolve`] for the ownerReferences of `dependents` only, looking owners up among
/// `candidates` (ascending positions), which must hold every object a reference can name:
/// by uid, and by group, kind and name in any namespace.
pub(super) fn resolve_among(
    inv: &Inventory,
    dependents: impl Iterator<Item = usize>,
    candidates: impl ExactSizeIterator<Item = usize>,
) -> (Vec<Edge>, Vec<Diagnostic>, HashMap<Str, OwnerStats>) {
    let index = Index::build(&inv.objects, candidates);
    let mut edges = Vec::new();
    let mut findings = Vec::new();
    let mut by_ns: HashMap<Str, OwnerStats> = HashMap::default();
    for i in dependents {
        let obj = &inv.objects[i];
        if obj.owner_refs().is_empty() {
            continue;
        }
        let stats = by_ns.entry(stats_ns(obj)).or_default();
        for r in obj.owner_refs() {
            if r.kind.is_empty() || r.name.is_empty() {
                stats.invalid += 1;
                continue;
            }
            match resolve_one(inv, &index, obj, &r) {
                Outcome::Edge { owner, by_uid } => {
                    if by_uid {
                        stats.by_uid += 1;
                    } else {
                        stats.by_name += 1;
                    }
                    edges.push(owner_edge(owner, i, &r, by_uid));
                }
                Outcome::Dangling(msg) => {
                    stats.dangling += 1;
                    findings.push(obj.finding(i, Severity::Warning, DANGLING, msg));
                }
                Outcome::Invalid(code, msg) => {
                    stats.invalid += 1;
                    findings.push(obj.finding(i, Severity::Error, code, msg));
                }
            }
        }
    }
    (edges, findings, by_ns)
}

/// The namespace an object's ownerReferences are counted under (`""`: cluster-scoped).
pub(super) fn stats_ns(obj: &Object) -> Str {
    if obj.namespaced {
        Arc::clone(&obj.id.namespace)
    } else {
        Str::from("")
    }
}

fn owner_edge(owner: usize, dependent: usize, r: &OwnerRef, by_uid: bool) -> Edge {
    let kind = EdgeKind::Owner {
        by_uid,
        controller: r.controller == Some(true),
        block_owner_deletion: r.block_owner_deletion == Some(true),
    };
    Edge::new(owner, dependent, kind)
}

/// `[apiVersion/Kind, namespace: ns, name: n, uid: u]`, the GC's `objectReference` String().
fn gc_ref(r: &OwnerRef, namespace: &str) -> String {
    format!(
        "[{}/{}, namespace: {}, name: {}, uid: {}]",
        r.api_version, r.kind, namespace, r.name, r.uid
    )
}

fn same_coordinates(o: &Object, r: &OwnerRef) -> bool {
    *o.id.group == *r.group() && *o.id.kind == *r.kind && *o.id.name == *r.name
}

fn resolve_one(inv: &Inventory, index: &Index<'_>, dep: &Object, r: &OwnerRef) -> Outcome {
    let group = r.group();
    let owner_namespaced = inv.kinds.is_namespaced(group, r.kind);
    if !dep.namespaced && owner_namespaced == Some(true) {
        return Outcome::Invalid(
            CLUSTER_SCOPED_DEPENDENT,
            format!(
                "OwnerRefInvalidNamespace: cluster-scoped objects cannot refer to namespaced owners: ownerRef {}",
                gc_ref(r, "")
            ),
        );
    }
    // A namespaced owner is only ever looked for in the dependent's own namespace.
    let lookup_ns = if owner_namespaced == Some(false) || !dep.namespaced {
        ""
    } else {
        dep.namespace()
    };
    if !r.uid.is_empty() {
        if let Some(t) = index.uid(r.uid) {
            return by_uid_target(inv, dep, r, t, lookup_ns);
        }
    }
    match index.id(group, r.kind, lookup_ns, r.name) {
        Some(t) => by_name_target(inv, r, t),
        None => not_found(inv, index, dep, r, lookup_ns),
    }
}

/// The uid names an object of the input: it must be the object the reference describes.
fn by_uid_target(inv: &Inventory, dep: &Object, r: &OwnerRef, t: usize, ns: &str) -> Outcome {
    let owner = &inv.objects[t];
    if !same_coordinates(owner, r) {
        return Outcome::Invalid(
            UID_MISMATCH,
            format!(
                "ownerReference {}/{} has uid {} of {}: the garbage collector looks the owner up by name and finds no match, so it treats it as absent",
                r.kind, r.name, r.uid, owner.id
            ),
        );
    }
    if owner.namespaced && *owner.id.namespace != *ns {
        return Outcome::Invalid(
            OTHER_NAMESPACE,
            format!(
                "OwnerRefInvalidNamespace: ownerRef {} does not exist in namespace {} (the owner is in namespace {})",
                gc_ref(r, dep.namespace()),
                Quoted(dep.namespace()),
                Quoted(&owner.id.namespace)
            ),
        );
    }
    Outcome::Edge {
        owner: t,
        by_uid: true,
    }
}

/// Found by name; when both sides carry uids they must agree (a recreated owner does not).
fn by_name_target(inv: &Inventory, r: &OwnerRef, t: usize) -> Outcome {
    let owner = &inv.objects[t];
    match &owner.uid() {
        // The GC fetches by name and compares uids: a mismatch means this owner is gone
        // (typically deleted and recreated), so the reference is dangling.
        Some(uid) if !r.uid.is_empty() && **uid != *r.uid => Outcome::Dangling(format!(
            "owner {} has uid {}, not {}: the garbage collector treats the owner as absent",
            owner.id, uid, r.uid
        )),
        _ => Outcome::Edge {
            owner: t,
            by_uid: false,
        },
    }
}

fn not_found(inv: &Inventory, index: &Index<'_>, dep: &Object, r: &OwnerRef, ns: &str) -> Outcome {
    let elsewhere = index
        .name_any_ns(r.group(), r.kind, r.name)
        .map(|t| &inv.objects[t])
        .filter(|o| o.namespaced && dep.namespaced);
    if let Some(other) = elsewhere {
        return Outcome::Invalid(
            OTHER_NAMESPACE,
            format!(
                "OwnerRefInvalidNamespace: ownerRef {} does not exist in namespace {} (an owner of that name is in namespace {}; owners must be in the dependent's namespace or cluster-scoped)",
                gc_ref(r, dep.namespace()),
                Quoted(dep.namespace()),
                Quoted(&other.id.namespace)
            ),
        );
    }
    let place = if ns.is_empty() {
        "(cluster-scoped)".to_owned()
    } else {
        format!("in namespace {}", Quoted(ns))
    };
    Outcome::Dangling(format!(
        "owner {}/{} ({}) not found in the input {}",
        r.kind, r.name, r.api_version, place
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r<'a>(api: &'a str, kind: &'a str, name: &'a str, uid: &'a str) -> OwnerRef<'a> {
        OwnerRef {
            api_version: api,
            kind,
            name,
            uid,
            controller: None,
            block_owner_deletion: None,
        }
    }

    #[test]
    fn gc_reference_string() {
        assert_eq!(
            gc_ref(&r("apps/v1", "ReplicaSet", "web", "u1"), "shop"),
            "[apps/v1/ReplicaSet, namespace: shop, name: web, uid: u1]"
        );
    }

    use crate::model::test_inventory;
    use serde_json::{json, Value};

    fn meta(
        kind: &str,
        api: &str,
        ns: Option<&str>,
        name: &str,
        uid: Option<&str>,
        owners: Value,
    ) -> Value {
        let mut m = json!({"name": name, "ownerReferences": owners});
        if let Some(ns) = ns {
            m["namespace"] = json!(ns);
        }
        if let Some(uid) = uid {
            m["uid"] = json!(uid);
        }
        json!({"apiVersion": api, "kind": kind, "metadata": m})
    }

    fn codes(f: &[Diagnostic]) -> Vec<&str> {
        f.iter().map(|f| f.code).collect()
    }

    #[test]
    fn resolves_by_uid_and_by_name() {
        let inv = test_inventory(&[
            meta(
                "Deployment",
                "apps/v1",
                Some("a"),
                "web",
                Some("d1"),
                json!([]),
            ),
            meta(
                "ReplicaSet",
                "apps/v1",
                Some("a"),
                "web-1",
                None,
                json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d1", "controller": true, "blockOwnerDeletion": true}]),
            ),
            meta(
                "Pod",
                "v1",
                Some("a"),
                "web-1-x",
                None,
                json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "r1"}]),
            ),
        ]);
        let (edges, findings, stats) = resolve(&inv);
        assert_eq!(edges.len(), 2);
        assert_eq!((edges[0].from, edges[0].to), (0, 1));
        assert_eq!(
            edges[0].kind,
            EdgeKind::Owner {
                by_uid: true,
                controller: true,
                block_owner_deletion: true
            }
        );
        assert_eq!((edges[1].from, edges[1].to), (1, 2));
        assert!(matches!(
            edges[1].kind,
            EdgeKind::Owner { by_uid: false, .. }
        ));
        assert!(findings.is_empty(), "{findings:?}");
        let stats = stats.values().fold(OwnerStats::default(), |a, b| a.plus(b));
        assert_eq!(
            stats,
            OwnerStats {
                by_uid: 1,
                by_name: 1,
                dangling: 0,
                invalid: 0
            }
        );
    }

    #[test]
    fn gc_rule_violations() {
        let inv = test_inventory(&[
            meta("ConfigMap", "v1", Some("a"), "owner", Some("c1"), json!([])),
            // other namespace, found by uid
            meta(
                "Secret",
                "v1",
                Some("b"),
                "s1",
                None,
                json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "c1"}]),
            ),
            // cluster-scoped dependent naming a namespaced owner
            meta(
                "ClusterRole",
                "rbac.authorization.k8s.io/v1",
                None,
                "cr",
                None,
                json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "c1"}]),
            ),
            // uid of another object
            meta(
                "Secret",
                "v1",
                Some("a"),
                "s2",
                None,
                json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "nope", "uid": "c1"}]),
            ),
            // dangling
            meta(
                "Secret",
                "v1",
                Some("a"),
                "s3",
                None,
                json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "gone", "uid": "zz"}]),
            ),
            // cluster-scoped owner from a namespaced dependent: fine
            meta("Namespace", "v1", None, "a", Some("n1"), json!([])),
            meta(
                "Secret",
                "v1",
                Some("a"),
                "s4",
                None,
                json!([{"apiVersion": "v1", "kind": "Namespace", "name": "a", "uid": "n1"}]),
            ),
        ]);
        let (edges, findings, stats) = resolve(&inv);
        assert_eq!(edges.len(), 1);
        assert_eq!((edges[0].from, edges[0].to), (5, 6));
        assert_eq!(
            codes(&findings),
            vec![
                OTHER_NAMESPACE,
                "owner-cluster-scoped-dependent",
                "owner-uid-mismatch",
                "owner-dangling"
            ]
        );
        assert_eq!(
            &*findings[0].message,
            r#"OwnerRefInvalidNamespace: ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: c1] does not exist in namespace "b" (the owner is in namespace "a")"#
        );
        assert!(findings[1]
            .message
            .contains("cluster-scoped objects cannot refer to namespaced owners"));
        assert_eq!(
            &*findings[3].message,
            r#"owner ConfigMap/gone (v1) not found in the input in namespace "a""#
        );
        let stats = stats.values().fold(OwnerStats::default(), |a, b| a.plus(b));
        assert_eq!(
            stats,
            OwnerStats {
                by_uid: 1,
                by_name: 0,
                dangling: 1,
                invalid: 3
            }
        );
    }

    #[test]
    fn two_controllers_and_recreated_owner() {
        let inv = test_inventory(&[
            meta("ConfigMap", "v1", Some("a"), "x", Some("new"), json!([])),
            meta("ConfigMap", "v1", Some("a"), "y", None, json!([])),
            meta(
                "Secret",
                "v1",
                Some("a"),
                "s",
                None,
                json!([
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "old", "controller": true},
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "y", "uid": "u2", "controller": true}]),
            ),
        ]);
        let (edges, findings, _) = resolve(&inv);
        // Resolution reports what the garbage collector makes of the references; their
        // validation (one controller only) is `validate`'s, which the graph adds.
        assert_eq!(codes(&findings), vec!["owner-dangling"]);
        assert_eq!(
            &*findings[0].message,
            "owner ConfigMap/a/x has uid new, not old: the garbage collector treats the owner as absent"
        );
        let graph = crate::graph::Graph::build(&inv);
        let findings: Vec<_> = graph
            .findings()
            .iter()
            .filter(|f| !crate::graph::refs::is_ref_finding(f.code))
            .cloned()
            .collect();
        assert_eq!(
            codes(&findings),
            vec![crate::validate::owners::INVALID, "owner-dangling"]
        );
        assert_eq!(edges.len(), 1);
        assert_eq!(edges[0].from, 1);
    }
}
