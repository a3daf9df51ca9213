//! Reference terms: `uses(TYPE/NAME)` keeps the objects that use the named object (through
//! a reference edge, or a reference to it the input cannot resolve); `usedby(TYPE/NAME)`
//! keeps what the named object uses. `TYPE/NAMESPACE/NAME` pins the namespace. TYPE is
//! resolved as `kubectl get` resolves it (`cm`, `deploy`, `secrets`, `ingress.networking.k8s.io`).
//! Also the reference groupings of `| by` (`| by serviceaccount`, `| by configmap` …).

use roaring::RoaringBitmap;

use super::QueryError;
use crate::graph::refs::{extract, Ref};
use crate::graph::{EdgeKind, Graph};
use crate::model::{Inventory, Object, ObjectId};

/// Which end of a reference the named object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    /// `uses(X)`: objects that use X.
    Uses,
    /// `usedby(X)`: objects X uses.
    UsedBy,
}

/// One `uses(…)`/`usedby(…)` term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefTerm {
    dir: Dir,
    ty: String,
    namespace: Option<String>,
    name: String,
}

const USES: &str = "uses(";
const USED_BY: &str = "usedby(";

/// Whether a (left-trimmed) term is a reference term.
pub fn is_ref_term(term: &str) -> bool {
    term.starts_with(USES) || term.starts_with(USED_BY)
}

impl RefTerm {
    /// Parses `uses(TYPE/NAME)`, `usedby(TYPE/NAMESPACE/NAME)` …; `offset` is the term's
    /// position in the bar text, for the caret.
    pub fn parse(term: &str, offset: usize) -> Result<RefTerm, QueryError> {
        let term = term.trim_end();
        let (dir, open) = match term.strip_prefix(USED_BY) {
            Some(_) => (Dir::UsedBy, USED_BY.len()),
            None => (Dir::Uses, USES.len()),
        };
        let Some(inner) = term[open..].strip_suffix(')') else {
            return Err(QueryError {
                message: "expected `)` to close the reference term".into(),
                offset: offset + term.len(),
            });
        };
        let parts: Vec<&str> = inner.trim().split('/').collect();
        let bad = QueryError {
            message: "expected TYPE/NAME or TYPE/NAMESPACE/NAME in the reference term".into(),
            offset: offset + open,
        };
        let (ty, namespace, name) = match parts.as_slice() {
            [ty, name] => (*ty, None, *name),
            [ty, ns, name] if !ns.is_empty() => (*ty, Some(ns.to_string()), *name),
            _ => return Err(bad),
        };
        if ty.is_empty() || name.is_empty() {
            return Err(bad);
        }
        Ok(RefTerm {
            dir,
            ty: ty.to_string(),
            namespace,
            name: name.to_string(),
        })
    }

    /// Whether `id` is the object the term names (`kinds`: the TYPE's kinds).
    fn names(&self, kinds: &[(&str, &str)], id: &ObjectId) -> bool {
        *id.name == *self.name
            && self
                .namespace
                .as_deref()
                .is_none_or(|ns| *id.namespace == *ns)
            && kinds
                .iter()
                .any(|(g, k)| *id.group == **g && *id.kind == **k)
    }

    /// Keeps in `set` only the objects the term selects.
    pub fn retain(&self, inv: &Inventory, graph: &Graph, set: &mut RoaringBitmap) {
        let kinds: Vec<(&str, &str)> = inv
            .kinds
            .resolve(&self.ty)
            .iter()
            .map(|k| (&*k.group, &*k.kind))
            .collect();
        let named = |i: usize| {
            inv.objects
                .get(i)
                .is_some_and(|o| self.names(&kinds, &o.id))
        };
        match self.dir {
            Dir::Uses => set.retain(|i| {
                let i = i as usize;
                graph.uses(i).iter().any(|e| named(e.to_ix()))
                    || graph
                        .dangling_of(i)
                        .iter()
                        .any(|d| self.names(&kinds, &d.target))
            }),
            Dir::UsedBy => {
                let mut used = RoaringBitmap::new();
                for (i, _) in inv.objects.iter().enumerate().filter(|(i, _)| named(*i)) {
                    let targets = graph
                        .uses(i)
                        .iter()
                        .filter(|e| matches!(e.kind, EdgeKind::Ref { .. }));
                    used.extend(targets.map(|e| e.to));
                }
                *set &= used;
            }
        }
    }
}

/// Kinds `| by` can group by the object they reference: (names, group, kind).
const GROUPABLE: [(&[&str], &str, &str); 11] = [
    (
        &["serviceaccount", "serviceaccounts", "sa"],
        "",
        "ServiceAccount",
    ),
    (&["configmap", "configmaps", "cm"], "", "ConfigMap"),
    (&["secret", "secrets"], "", "Secret"),
    (
        &["persistentvolumeclaim", "persistentvolumeclaims", "pvc"],
        "",
        "PersistentVolumeClaim",
    ),
    (&["service", "services", "svc"], "", "Service"),
    (
        &["priorityclass", "priorityclasses", "pc"],
        "scheduling.k8s.io",
        "PriorityClass",
    ),
    (
        &["runtimeclass", "runtimeclasses"],
        "node.k8s.io",
        "RuntimeClass",
    ),
    (
        &["storageclass", "storageclasses", "sc"],
        "storage.k8s.io",
        "StorageClass",
    ),
    (
        &["ingressclass", "ingressclasses"],
        "networking.k8s.io",
        "IngressClass",
    ),
    (&["role", "roles"], "rbac.authorization.k8s.io", "Role"),
    (
        &["clusterrole", "clusterroles"],
        "rbac.authorization.k8s.io",
        "ClusterRole",
    ),
];

/// The (group, kind) a `| by WORD` groups by reference, if WORD names one.
pub fn groupable(word: &str) -> Option<(&'static str, &'static str)> {
    GROUPABLE
        .iter()
        .find(|(names, _, _)| names.contains(&word))
        .map(|(_, g, k)| (*g, *k))
}

/// The group of `obj` by the objects of `kind` it references by name: `Kind/a, b`, or
/// `(no Kind)`.
pub fn group_key(group: &str, kind: &str, obj: &Object) -> String {
    let mut refs: Vec<Ref<'_>> = Vec::new();
    extract(obj, &mut refs);
    let mut names: Vec<&str> = Vec::new();
    for r in refs
        .iter()
        .filter(|r| r.target.group == group && r.target.kind == kind)
    {
        if !names.contains(&r.target.name) {
            names.push(r.target.name);
        }
    }
    if names.is_empty() {
        format!("(no {kind})")
    } else {
        format!("{kind}/{}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_names_with_and_without_namespace() {
        let t = RefTerm::parse("uses(cm/app-config)", 0).ok();
        assert_eq!(
            t,
            Some(RefTerm {
                dir: Dir::Uses,
                ty: "cm".into(),
                namespace: None,
                name: "app-config".into()
            })
        );
        let t = RefTerm::parse("usedby(deploy/shop/web) ", 0).ok();
        assert_eq!(
            t.map(|t| (t.dir, t.namespace)),
            Some((Dir::UsedBy, Some("shop".into())))
        );
    }

    #[test]
    fn reports_where_a_term_is_malformed() {
        let e = RefTerm::parse("uses(cm/x", 4).err();
        assert_eq!(e.map(|e| e.offset), Some(13));
        let e = RefTerm::parse("uses(cm)", 4).err();
        assert_eq!(
            e.map(|e| (e.message, e.offset)),
            Some((
                "expected TYPE/NAME or TYPE/NAMESPACE/NAME in the reference term".into(),
                9
            ))
        );
        assert!(RefTerm::parse("uses(a/b/c/d)", 0).is_err());
        assert!(RefTerm::parse("usedby(/x)", 0).is_err());
    }

    #[test]
    fn groups_by_the_referenced_object() {
        let inv = crate::model::test_inventory(&[
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "a"},
                "spec": {"serviceAccountName": "runner", "volumes": [
                    {"name": "x", "configMap": {"name": "one"}}, {"name": "y", "configMap": {"name": "two"}}]}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one", "namespace": "a"}}),
        ]);
        let (g, k) = groupable("sa").unwrap_or_default();
        assert_eq!(group_key(g, k, &inv.objects[0]), "ServiceAccount/runner");
        let (g, k) = groupable("configmaps").unwrap_or_default();
        assert_eq!(group_key(g, k, &inv.objects[0]), "ConfigMap/one, two");
        assert_eq!(group_key(g, k, &inv.objects[1]), "(no ConfigMap)");
        assert_eq!(groupable("app"), None);
    }
}
