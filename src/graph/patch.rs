//! Patching a graph after some files changed, instead of rebuilding it.
//!
//! Owner edges, selector edges and every finding except the app-label ones are about one
//! object and depend only on objects of its namespace and on cluster-scoped objects, with
//! one exception: resolving an ownerReference by uid, and the "owner exists in another
//! namespace" hint of a reference that did not resolve, look at objects of any namespace
//! ("context" objects below). So a patch recomputes, with the very code of a full build, the
//! namespaces a change touches — those of the replaced objects, of the objects whose
//! ownerReferences name one of them (in their own scope, by uid, or anywhere for an
//! unresolved reference), and of the owners they name — on a sub-inventory made of those
//! namespaces' objects, every cluster-scoped object and the context objects. Only the
//! recomputed objects' references make edges there (a context object's would resolve
//! against part of the input). Results about objects of other namespaces are kept, their
//! positions shifted. App-label findings group objects of all namespaces by (part-of, name,
//! instance): the instances the change touches are recomputed over the whole inventory.
//! A Terminating Namespace's finding lists the objects of its namespace: when that namespace
//! is recomputed, the sub-inventory holds all of them and the (cluster-scoped) Namespace
//! object, so that one finding is taken from the sub-inventory too.
//!
//! It rebuilds instead when a cluster-scoped object is replaced, owns or depends on a changed
//! object, or may own a recomputed one (its findings depend on every namespace), and when the
//! sub-inventory would hold most of the input. The result of a patch equals a full build
//! (property-tested in `tests`).

use std::ops::Range;

use rustc_hash::FxHashSet;

use super::keys::{self, Key, Keys};
use super::{apps, compute, lifecycle, Edge, Graph, Parts};
use crate::diagnostic::Diagnostic;
use crate::model::{Inventory, Object};

/// One run of objects replaced by a change (typically one file's objects).
#[derive(Clone, Copy, Debug)]
pub struct Replaced<'a> {
    /// Position of the first replaced object in the old inventory.
    pub at: usize,
    /// The objects that stood at `at..at + removed.len()` in the old inventory.
    pub removed: &'a [Object],
    /// How many objects stand in their place in the new inventory.
    pub added: usize,
}

/// What [`Graph::patch`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatchOutcome {
    /// Recomputed `namespaces` namespaces over a sub-inventory of `objects` objects.
    Patched { namespaces: usize, objects: usize },
    /// Rebuilt from scratch, and why.
    Rebuilt(&'static str),
}

/// Above this share of the inventory in the sub-inventory, a rebuild is as cheap.
const REBUILD_ABOVE_PERCENT: usize = 50;

const REMOVED: u32 = u32::MAX;

impl Graph {
    /// The graph of `inv`, which is the inventory this graph was built for with the runs
    /// `replaced` (ascending, not overlapping, in old positions) replaced. Equal to
    /// `Graph::build(inv)`, at a cost proportional to the namespaces the change touches plus
    /// a linear pass over positions.
    pub fn patch(self, inv: &Inventory, replaced: &[Replaced<'_>]) -> (Graph, PatchOutcome) {
        self.patch_up_to(inv, replaced, REBUILD_ABOVE_PERCENT)
    }

    /// [`Graph::patch`], rebuilding when the sub-inventory would hold more than
    /// `rebuild_above_percent` % of the objects.
    fn patch_up_to(
        self,
        inv: &Inventory,
        replaced: &[Replaced<'_>],
        rebuild_above_percent: usize,
    ) -> (Graph, PatchOutcome) {
        let mut old = self;
        // The keys are spliced in place into the new graph's (a rebuild makes its own).
        let keys = std::mem::take(&mut old.keys);
        match Plan::new(old.len, keys, inv, replaced, rebuild_above_percent) {
            Ok(plan) => {
                let outcome = PatchOutcome::Patched {
                    namespaces: plan.namespaces.len(),
                    objects: plan.sub.objects.len(),
                };
                (plan.apply(old, inv), outcome)
            }
            Err(reason) => (Graph::build(inv), PatchOutcome::Rebuilt(reason)),
        }
    }
}

/// What a patch recomputes.
struct Plan {
    /// Old position → new position (`REMOVED` for replaced objects).
    map: Vec<u32>,
    /// Keys of the new inventory.
    keys: Keys,
    /// Keys of the namespaces recomputed.
    namespaces: FxHashSet<u64>,
    /// Per new position: the object's results are recomputed.
    recomputed: Vec<bool>,
    /// The sub-inventory and the full position of each of its objects.
    sub: Inventory,
    sub_to_full: Vec<usize>,
    /// Keys of the app instances recomputed (those of the changed objects).
    instances: FxHashSet<u64>,
}

impl Plan {
    /// `old_len` objects with `keys` (the graph's, taken from it) before the change.
    fn new(
        old_len: usize,
        mut keys: Keys,
        inv: &Inventory,
        replaced: &[Replaced<'_>],
        rebuild_above_percent: usize,
    ) -> Result<Plan, &'static str> {
        let (map, added) = position_map(old_len, inv.objects.len(), replaced)?;
        if keys.objects.len() != old_len {
            return Err("the graph has no keys for its objects");
        }
        let runs: Vec<(Range<usize>, Range<usize>)> = replaced
            .iter()
            .zip(&added)
            .map(|(r, a)| (r.at..r.at + r.removed.len(), a.clone()))
            .collect();
        let old_unresolved = std::mem::take(&mut keys.unresolved);
        keys.splice(&runs, &inv.objects);
        let removed = replaced.iter().flat_map(|r| r.removed.iter());
        let added_objects = added.iter().flat_map(|r| inv.objects[r.clone()].iter());
        let changed: Vec<&Object> = removed.chain(added_objects).collect();

        // Whether each object had an unresolved ownerReference before the change.
        let mut unresolved = vec![false; keys.objects.len()];
        for (old, &was) in old_unresolved.iter().enumerate() {
            if let Some(new) = shifted(&map, old) {
                unresolved[new] = was;
            }
        }

        // Where the changed objects can be found (in their namespace, in any, by uid), and
        // the owners they name (in their namespace or cluster scope, by uid).
        let mut here = FxHashSet::default();
        let mut anywhere = FxHashSet::default();
        let mut uids = FxHashSet::default();
        let mut owners_here = FxHashSet::default();
        let mut owner_uids = FxHashSet::default();
        let mut namespaces = FxHashSet::default();
        let mut instances = FxHashSet::default();
        for o in &changed {
            let k = Key::of(o);
            if k.ns == 0 {
                return Err("a cluster-scoped object changed");
            }
            namespaces.insert(k.ns);
            here.insert(k.ns_name);
            anywhere.insert(k.name);
            if k.uid != 0 {
                uids.insert(k.uid);
            }
            for r in keys::ref_keys(o) {
                owners_here.extend([r.here, r.cluster]);
                if r.uid != 0 {
                    owner_uids.insert(r.uid);
                }
            }
            if k.instance != 0 {
                instances.insert(k.instance);
            }
        }
        // Dependents of the changed objects: by name in their scope or by uid; by name in
        // any namespace when a reference did not resolve (its finding names where an owner
        // of that name is). Owners of the changed objects.
        for (i, k) in keys.objects.iter().enumerate() {
            let dependent = keys.refs(i).iter().any(|r| {
                here.contains(&r.here)
                    || here.contains(&r.cluster)
                    || (r.uid != 0 && uids.contains(&r.uid))
                    || ((unresolved[i] || k.ns == 0) && anywhere.contains(&r.anywhere))
            });
            let owner =
                owners_here.contains(&k.ns_name) || (k.uid != 0 && owner_uids.contains(&k.uid));
            if dependent || owner {
                if k.ns == 0 {
                    return Err("a cluster-scoped object is owner or dependent of a changed one");
                }
                namespaces.insert(k.ns);
            }
        }
        let recomputed: Vec<bool> = keys
            .objects
            .iter()
            .map(|k| namespaces.contains(&k.ns))
            .collect();

        // A cluster-scoped owner's findings depend on its dependents in every namespace: if
        // a recomputed object may name one, rebuild.
        let mut cluster = Names::default();
        for k in keys.objects.iter().filter(|k| k.ns == 0) {
            cluster.add(k.ns_name, k.uid);
        }
        let names_cluster_scoped = (0..keys.objects.len())
            .filter(|&i| recomputed[i])
            .any(|i| keys.refs(i).iter().any(|r| cluster.has(r.cluster, r.uid)));
        if names_cluster_scoped {
            return Err("a recomputed object may have a cluster-scoped owner");
        }

        // Context: whatever an ownerReference from the recomputed namespaces can name.
        let mut context = Names::default();
        for (i, _) in recomputed.iter().enumerate().filter(|(_, r)| **r) {
            for r in keys.refs(i) {
                context.add(r.anywhere, r.uid);
            }
        }
        let sub_to_full: Vec<usize> = keys
            .objects
            .iter()
            .enumerate()
            .filter(|(i, k)| recomputed[*i] || k.ns == 0 || context.has(k.name, k.uid))
            .map(|(i, _)| i)
            .collect();
        if sub_to_full.len() * 100 > inv.objects.len() * rebuild_above_percent {
            return Err("the change touches most of the inventory");
        }
        let sub = Inventory::of(
            sub_to_full
                .iter()
                .map(|&i| inv.objects[i].clone())
                .collect(),
            inv.kinds.clone(),
        );
        Ok(Plan {
            map,
            keys,
            namespaces,
            recomputed,
            sub,
            sub_to_full,
            instances,
        })
    }

    /// Recomputes what the plan covers and merges it with what `old` keeps.
    fn apply(self, mut old: Graph, inv: &Inventory) -> Graph {
        let Plan {
            map,
            keys,
            namespaces,
            recomputed,
            sub,
            sub_to_full,
            instances,
        } = self;
        // Only the recomputed objects' ownerReferences make edges in the sub-inventory: a
        // context object's would resolve against part of the input.
        let sub_owned: Vec<bool> = sub_to_full.iter().map(|&i| recomputed[i]).collect();
        let new_parts = compute(&sub, Some(&sub_owned));
        let to_full = |i: usize| sub_to_full[i];
        let owned = |sub_pos: usize| recomputed[to_full(sub_pos)];
        // A Terminating Namespace's finding lists the objects of its namespace: when that
        // namespace is recomputed, the sub-inventory holds all of them (in load order) and
        // the Namespace object (cluster-scoped), so its finding there is the full build's.
        let lists_recomputed = |f: &Diagnostic, full: usize| {
            f.code == lifecycle::NAMESPACE_TERMINATING
                && namespaces.contains(&keys.objects[full].terminating_ns)
        };

        let mut parts = Parts::default();
        // Owner edges belong to their dependent: kept edges of kept objects (shifted), then
        // the recomputed objects' edges.
        let kept = old.owners_of.all().iter().filter_map(|e| {
            let (from, to) = (shifted(&map, e.from)?, shifted(&map, e.to)?);
            (!recomputed[to]).then_some(Edge { from, to, ..*e })
        });
        let recomputed_edges = new_parts
            .owner_edges
            .iter()
            .filter(|e| owned(e.to))
            .map(|e| Edge {
                from: to_full(e.from),
                to: to_full(e.to),
                ..*e
            });
        parts.owner_edges = kept.chain(recomputed_edges).collect();
        // Selections belong to the selecting object, likewise; each set is moved once, in
        // place.
        parts.selections = old.selectors.into_selections().moved(
            |from| shifted(&map, from).filter(|&f| !recomputed[f]),
            |t| shifted(&map, t),
        );
        let recomputed_selections = new_parts.selections.moved(
            |from| owned(from).then(|| to_full(from)),
            |t| sub_to_full.get(t).copied(),
        );
        parts.selections.append(recomputed_selections);
        // Findings: non-app ones by namespace, app-label ones by instance.
        let in_instance = |full: usize| instances.contains(&keys.objects[full].instance);
        let mut kept_apps = Vec::new();
        let old_refs = std::mem::take(&mut old.refs);
        let mut old_ref_findings = Vec::new();
        for f in old.findings {
            if super::refs::is_ref_finding(f.code) {
                old_ref_findings.push(f);
                continue;
            }
            let Some(new) = f.object_index().and_then(|i| shifted(&map, i)) else {
                continue;
            };
            let f = f.about(new);
            if f.code == apps::DISAGREEMENT {
                if !in_instance(new) {
                    kept_apps.push(f);
                }
            } else if !recomputed[new] && !lists_recomputed(&f, new) {
                parts.findings.push(f);
            }
        }
        for f in new_parts.findings {
            let keep = |&i: &usize| owned(i) || lists_recomputed(&f, to_full(i));
            if let Some(i) = f.object_index().filter(keep) {
                parts.findings.push(f.about(to_full(i)));
            }
        }
        parts.app_findings = kept_apps;
        if !instances.is_empty() {
            let members = (0..inv.objects.len()).filter(|&i| in_instance(i));
            parts
                .app_findings
                .extend(apps::findings_among(inv, members));
        }

        parts.stats_by_ns = old.stats_by_ns;
        let recomputed_ns = |ns: &str| namespaces.contains(&keys::ns_key(ns));
        parts.stats_by_ns.retain(|ns, _| !recomputed_ns(ns));
        for (ns, stats) in new_parts.stats_by_ns {
            if recomputed_ns(&ns) {
                parts.stats_by_ns.insert(ns, stats);
            }
        }
        let shift = |old: usize| shifted(&map, old);
        Graph::assemble(inv.objects.len(), parts, keys).patch_refs(
            inv,
            old_refs,
            old_ref_findings,
            &shift,
            &recomputed,
        )
    }
}

/// The new position of an old one, if the object was not replaced.
fn shifted(map: &[u32], old: usize) -> Option<usize> {
    map.get(old)
        .copied()
        .filter(|&n| n != REMOVED)
        .map(|n| n as usize)
}

/// Old position → new position, and the ranges the added objects occupy in the new
/// inventory. Fails when `replaced` does not describe `old_len` → `new_len`.
fn position_map(
    old_len: usize,
    new_len: usize,
    replaced: &[Replaced<'_>],
) -> Result<(Vec<u32>, Vec<Range<usize>>), &'static str> {
    if u32::try_from(old_len.max(new_len)).is_err() {
        return Err("too many objects");
    }
    let mut map = Vec::with_capacity(old_len);
    let mut added = Vec::with_capacity(replaced.len());
    let mut new_pos = 0usize;
    for r in replaced {
        if r.at < map.len() || r.at + r.removed.len() > old_len {
            return Err("replaced runs out of order or out of range");
        }
        while map.len() < r.at {
            map.push(new_pos as u32);
            new_pos += 1;
        }
        map.extend(std::iter::repeat_n(REMOVED, r.removed.len()));
        added.push(new_pos..new_pos + r.added);
        new_pos += r.added;
    }
    while map.len() < old_len {
        map.push(new_pos as u32);
        new_pos += 1;
    }
    if new_pos != new_len {
        return Err("replaced runs do not add up to the new inventory");
    }
    Ok((map, added))
}

/// Name keys and uid keys (see `keys.rs`), to find ownerReferences between objects.
#[derive(Default)]
struct Names {
    names: FxHashSet<u64>,
    uids: FxHashSet<u64>,
}

impl Names {
    fn add(&mut self, name: u64, uid: u64) {
        self.names.insert(name);
        if uid != 0 {
            self.uids.insert(uid);
        }
    }

    fn has(&self, name: u64, uid: u64) -> bool {
        self.names.contains(&name) || (uid != 0 && self.uids.contains(&uid))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::*;

    /// A tiny deterministic generator, so one proptest seed spans a whole scenario.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    const KINDS: &[(&str, &str)] = &[
        ("v1", "Pod"),
        ("v1", "Pod"),
        ("apps/v1", "ReplicaSet"),
        ("apps/v1", "Deployment"),
        ("v1", "Service"),
        ("v1", "Service"),
        ("v1", "ConfigMap"),
        ("policy/v1", "PodDisruptionBudget"),
        ("networking.k8s.io/v1", "NetworkPolicy"),
        ("v1", "Namespace"),
        ("v1", "Node"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole"),
        ("v1", "Secret"),
        ("v1", "ServiceAccount"),
        ("rbac.authorization.k8s.io/v1", "RoleBinding"),
        ("rbac.authorization.k8s.io/v1", "Role"),
        ("networking.k8s.io/v1", "Ingress"),
    ];
    const NAMES: &[&str] = &["web", "db", "x", "a", "b"];
    const NAMESPACES: &[&str] = &["a", "b", "c", "d"];
    const UIDS: &[&str] = &["u1", "u2", "u3", "u4", "u5", "u6"];

    fn labels(rng: &mut Rng) -> Value {
        let mut m = serde_json::Map::new();
        for (key, values) in [
            ("app", &["web", "db"][..]),
            ("tier", &["fe", "be"][..]),
            (apps::NAME, &["web", "db"][..]),
            (apps::INSTANCE, &["i1", "i2"][..]),
            (apps::VERSION, &["1", "2"][..]),
            (apps::MANAGED_BY, &["helm", "kubectl"][..]),
        ] {
            if rng.chance(40) {
                m.insert(key.into(), rng.pick(values).into());
            }
        }
        Value::Object(m)
    }

    /// Kinds of [`KINDS`] that are namespaced.
    const NAMESPACED_KINDS: &[(&str, &str)] = &[
        ("v1", "Pod"),
        ("apps/v1", "ReplicaSet"),
        ("apps/v1", "Deployment"),
        ("v1", "Service"),
        ("v1", "ConfigMap"),
        ("policy/v1", "PodDisruptionBudget"),
        ("networking.k8s.io/v1", "NetworkPolicy"),
    ];

    /// What a scenario's changed objects may be.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Scenario {
        /// Any kind, scope and ownerReference.
        Any,
        /// A first file, never changed, holds Namespaces `a`–`d`, most of them Terminating;
        /// the other files hold namespaced objects naming namespaced owners only.
        TerminatingNamespaces,
    }

    fn object(rng: &mut Rng) -> Value {
        object_of(rng, Scenario::Any)
    }

    fn object_of(rng: &mut Rng, scenario: Scenario) -> Value {
        let kinds = match scenario {
            Scenario::Any => KINDS,
            Scenario::TerminatingNamespaces => NAMESPACED_KINDS,
        };
        let (api, kind) = kinds[rng.below(kinds.len())];
        let name = rng.pick(NAMES);
        let mut meta = json!({"name": name, "labels": labels(rng)});
        if scenario != Scenario::Any || rng.chance(85) {
            meta["namespace"] = rng.pick(NAMESPACES).into();
        }
        if rng.chance(60) {
            meta["uid"] = rng.pick(UIDS).into();
        }
        let refs: Vec<Value> = (0..rng.below(3))
            .map(|_| {
                let (api, kind) = kinds[rng.below(kinds.len())];
                let mut r = json!({"apiVersion": api, "kind": kind, "name": rng.pick(NAMES)});
                if rng.chance(50) {
                    r["uid"] = rng.pick(UIDS).into();
                }
                if rng.chance(50) {
                    r["controller"] = true.into();
                }
                if rng.chance(30) {
                    r["blockOwnerDeletion"] = true.into();
                }
                r
            })
            .collect();
        if !refs.is_empty() {
            meta["ownerReferences"] = refs.into();
        }
        if rng.chance(15) {
            meta["finalizers"] = json!([rng.pick(&["foregroundDeletion", "orphan", "x.io/y"])]);
        }
        if rng.chance(15) {
            meta["deletionTimestamp"] = "2024-01-01T00:00:00Z".into();
        }
        let mut o = json!({"apiVersion": api, "kind": kind, "metadata": meta});
        let spec = spec(rng, kind);
        if !spec.is_null() {
            o["spec"] = spec;
        }
        if kind == "RoleBinding" {
            o["roleRef"] = json!({"kind": "Role", "name": rng.pick(NAMES)});
            o["subjects"] = json!([{"kind": "ServiceAccount", "name": rng.pick(NAMES),
                "namespace": rng.pick(NAMESPACES)}]);
        }
        o
    }

    /// A `metav1.LabelSelector` for `app`, written one of several ways: most pick the same
    /// objects as `{matchLabels: {app: …}}`, so many selectors share one matched set,
    /// equal or not.
    fn label_selector(rng: &mut Rng, app: &str) -> Value {
        let other = if app == "web" { "db" } else { "web" };
        match rng.below(6) {
            0 | 1 => json!({"matchLabels": {"app": app}}),
            2 => json!({"matchExpressions": [{"key": "app", "operator": "In", "values": [app]}]}),
            3 => {
                json!({"matchExpressions": [{"key": "app", "operator": "In", "values": [other, app, app]}]})
            }
            4 => json!({"matchExpressions": [{"key": "app", "operator": "Exists"}]}),
            _ => json!({"matchLabels": {"app": app},
                "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["be"]}]}),
        }
    }

    /// A spec with the kind's selector (or reference) fields.
    fn spec(rng: &mut Rng, kind: &str) -> Value {
        let app = rng.pick(&["web", "db"]);
        match kind {
            "Service" => json!({"selector": {"app": app},
                "ports": [{"port": 80, "targetPort": rng.pick(&["http", "m"])}]}),
            "ReplicaSet" | "Deployment" => json!({
                "selector": label_selector(rng, app),
                "template": {"metadata": {"labels": {"app": rng.pick(&["web", "db"])}},
                    "spec": pod_spec(rng)}}),
            "Pod" if rng.chance(35) => json!({"nodeName": rng.pick(&["web", "x"])}),
            "Pod" if rng.chance(50) => json!({"nodeSelector": {"app": app}}),
            "Pod" => pod_spec(rng),
            "Ingress" => json!({"rules": [{"http": {"paths": [{"backend": {"service": {
                "name": rng.pick(NAMES), "port": {"number": if rng.chance(50) { 80 } else { 81 }}}}}]}}]}),
            "NetworkPolicy" => json!({
                "podSelector": label_selector(rng, app),
                "ingress": [{"from": [
                    {"namespaceSelector": label_selector(rng, app)},
                    {"namespaceSelector": {"matchLabels": {"app": app}}}]}]}),
            "PodDisruptionBudget" => json!({"selector": label_selector(rng, app)}),
            _ => Value::Null,
        }
    }

    /// An edit of one field of `o` that links it: its selector, its labels or its namespace.
    fn edit(rng: &mut Rng, o: &mut Value) {
        match rng.below(3) {
            0 => {
                let kind = o["kind"].as_str().unwrap_or("").to_string();
                let spec = spec(rng, &kind);
                if spec.is_null() {
                    o.as_object_mut().map(|m| m.remove("spec"));
                } else {
                    o["spec"] = spec;
                }
            }
            1 => o["metadata"]["labels"] = labels(rng),
            _ => o["metadata"]["namespace"] = rng.pick(NAMESPACES).into(),
        }
    }

    /// A pod spec naming a ConfigMap, a Secret and a ServiceAccount, with a named port.
    fn pod_spec(rng: &mut Rng) -> Value {
        json!({"serviceAccountName": rng.pick(NAMES),
            "volumes": [{"name": "v", "configMap": {"name": rng.pick(NAMES)}}],
            "containers": [{"name": "c", "envFrom": [{"secretRef": {"name": rng.pick(NAMES)}}],
                "ports": [{"name": rng.pick(&["http", "m"])}]}]})
    }

    /// Objects of files `files`, each at its own path and lines (as a loader yields them).
    fn inventory(files: &[Vec<Value>]) -> Inventory {
        let names: Vec<String> = (0..files.len()).map(|f| format!("f{f}.yaml")).collect();
        let files: Vec<(&str, &[Value])> = names
            .iter()
            .zip(files)
            .map(|(n, d)| (n.as_str(), d.as_slice()))
            .collect();
        crate::model::testutil::test_inventory_files(&files)
    }

    /// Namespaces `a`–`d`, each present or not, Terminating or not (by deletion or phase).
    fn namespaces(rng: &mut Rng) -> Vec<Value> {
        let present: Vec<&str> = NAMESPACES
            .iter()
            .copied()
            .filter(|_| rng.chance(80))
            .collect();
        present
            .into_iter()
            .map(|ns| {
                let mut o = json!({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": ns, "labels": labels(rng)}});
                match rng.below(3) {
                    0 => o["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z".into(),
                    1 => o["status"] = json!({"phase": "Terminating"}),
                    _ => {}
                }
                o
            })
            .collect()
    }

    /// Replaces some files with new contents; returns the outcome and both graphs.
    fn patched_and_built(seed: u64) -> (PatchOutcome, Graph, Graph) {
        patched_and_built_in(seed, Scenario::Any)
    }

    fn patched_and_built_in(seed: u64, scenario: Scenario) -> (PatchOutcome, Graph, Graph) {
        let mut rng = Rng(seed | 1);
        let mut files: Vec<Vec<Value>> = (0..2 + rng.below(5))
            .map(|_| {
                (0..rng.below(6))
                    .map(|_| object_of(&mut rng, scenario))
                    .collect()
            })
            .collect();
        // Files the change may replace.
        let mut changeable = 0..files.len();
        if scenario == Scenario::TerminatingNamespaces {
            files.insert(0, namespaces(&mut rng));
            changeable = 1..files.len();
        }
        let before = inventory(&files);
        let mut after_files = files.clone();
        let changed: Vec<usize> = changeable.filter(|_| rng.chance(35)).collect();
        for &f in &changed {
            after_files[f] = if rng.chance(50) {
                // An edit of some objects, often keeping the count.
                let mut docs = files[f].clone();
                for d in docs.iter_mut() {
                    if rng.chance(30) {
                        *d = object_of(&mut rng, scenario);
                    } else if rng.chance(50) {
                        edit(&mut rng, d);
                    }
                }
                docs
            } else {
                (0..rng.below(5))
                    .map(|_| object_of(&mut rng, scenario))
                    .collect()
            };
        }
        let after = inventory(&after_files);
        let mut replaced = Vec::new();
        let mut at = 0;
        for (f, docs) in files.iter().enumerate() {
            if changed.contains(&f) {
                replaced.push(Replaced {
                    at,
                    removed: &before.objects[at..at + docs.len()],
                    added: after_files[f].len(),
                });
            }
            at += docs.len();
        }
        // Patched however much it touches (small inventories would mostly rebuild).
        let (patched, outcome) = Graph::build(&before).patch_up_to(&after, &replaced, 100);
        (outcome, patched, Graph::build(&after))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        #[test]
        fn a_patch_equals_a_full_build(seed in any::<u64>()) {
            let (outcome, patched, built) = patched_and_built(seed);
            prop_assert_eq!(&patched, &built, "{:?}", outcome);
        }
    }

    /// What differs between a patched and a built graph, readably.
    fn diff(p: &Graph, b: &Graph) -> String {
        let mut out = String::new();
        let adj = [
            ("owners_of", &p.owners_of, &b.owners_of),
            ("uses", &p.refs.uses, &b.refs.uses),
        ];
        for (name, x, y) in adj {
            if x != y {
                out += &format!(
                    "{name}:\n  patched {:?}\n  built   {:?}\n",
                    x.all(),
                    y.all()
                );
            }
        }
        if p.selectors != b.selectors {
            let all = |g: &Graph| -> Vec<Edge> { (0..g.len).flat_map(|i| g.selects(i)).collect() };
            out += &format!(
                "selectors:\n  patched {:?}\n  built   {:?}\n",
                all(p),
                all(b)
            );
        }
        for f in p.findings.iter().filter(|f| !b.findings.contains(f)) {
            out += &format!("extra   {f:?}\n");
        }
        for f in b.findings.iter().filter(|f| !p.findings.contains(f)) {
            out += &format!("missing {f:?}\n");
        }
        if p.findings != b.findings {
            out += "findings differ (maybe only in order)\n";
        }
        if p.stats_by_ns != b.stats_by_ns {
            out += &format!("stats {:?} vs {:?}\n", p.stats_by_ns, b.stats_by_ns);
        }
        if p.keys != b.keys {
            out += "keys differ\n";
        }
        out
    }

    /// Many more scenarios than the proptest: `cargo test --release -- --ignored patch`.
    #[test]
    #[ignore = "long; run in release"]
    fn a_patch_equals_a_full_build_many_times() {
        for seed in 0..100_000u64 {
            let scenario = if seed % 4 == 0 {
                Scenario::TerminatingNamespaces
            } else {
                Scenario::Any
            };
            let (outcome, patched, built) =
                patched_and_built_in(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), scenario);
            assert!(
                patched == built,
                "seed {seed}: {outcome:?}\n{}",
                diff(&patched, &built)
            );
        }
    }

    #[test]
    fn most_generated_changes_are_patched_not_rebuilt() {
        let patched = (1..400u64)
            .filter(|s| matches!(patched_and_built(s * 7919).0, PatchOutcome::Patched { .. }))
            .count();
        // Changes involving cluster-scoped objects (a third of the generated kinds) rebuild;
        // the test makes sure patching is exercised at all.
        assert!(patched > 100, "only {patched} of 399 changes were patched");
    }

    /// Changes inside Terminating Namespaces (whose findings list their contents) are
    /// patched, and the patch equals a full build.
    #[test]
    fn changes_in_terminating_namespaces_are_patched() {
        let mut listed = 0;
        for seed in 1..600u64 {
            let (outcome, patched, built) =
                patched_and_built_in(seed * 7919, Scenario::TerminatingNamespaces);
            assert!(
                matches!(outcome, PatchOutcome::Patched { .. }),
                "seed {seed}: {outcome:?}"
            );
            assert!(patched == built, "seed {seed}\n{}", diff(&patched, &built));
            listed += built
                .findings
                .iter()
                .filter(|f| f.code == lifecycle::NAMESPACE_TERMINATING)
                .filter(|f| f.message.contains("still inside"))
                .count();
        }
        assert!(
            listed > 100,
            "only {listed} Terminating Namespaces with contents"
        );
    }

    #[test]
    fn inconsistent_runs_rebuild() {
        let inv = inventory(&[vec![object(&mut Rng(3))]]);
        let g = Graph::build(&inv);
        let bad = [Replaced {
            at: 5,
            removed: &[],
            added: 0,
        }];
        let (rebuilt, outcome) = g.patch(&inv, &bad);
        assert!(matches!(outcome, PatchOutcome::Rebuilt(_)));
        assert_eq!(rebuilt, Graph::build(&inv));
    }
}
