//! Selector and reference edges: what a Service, workload, PDB, NetworkPolicy, HPA or Pod
//! picks, with the selector engine's exact semantics, plus the findings they give rise to.
//!
//! Offline, a Deployment in git usually has no Pods, so a label selector also picks the
//! workloads whose *pod template* carries matching labels: that is what it will select once
//! applied. Candidates are found through a per-namespace `(key, value)` posting list (the
//! first equality requirement of the selector), then checked against the whole selector, so
//! building stays near-linear in objects. Equal selectors of one namespace are evaluated
//! once and share what they matched (see `selsets.rs`): 5,000 Services with one selector
//! cost one match and one set, not 5,000 of each.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::keys::Keys;
use super::selsets::{Members, Selections};
use super::setkeys::{self, Candidates, Class, JsonLabels, Matcher, Pool, Scan, SetKey};
use super::Adjacency;
use crate::diagnostic::{Diagnostic, Severity};
use crate::gocompat::{self, quote::Quoted};
use crate::model::{Inventory, Object};
use crate::selector::{label_selector_from_value, map_selector, NodeSelector, Selector};
use crate::value::{RawObject, RawRef};

/// Selections (selecting object → what it matched) and selector findings. The owner edges
/// (`owners_of`, `dependents_of`) keep a workload's selection off the Pods it already owns.
pub(super) fn resolve(
    inv: &Inventory,
    owners_of: &Adjacency,
    dependents_of: &Adjacency,
) -> (Selections, Vec<Diagnostic>) {
    let pool = Pool::build(inv);
    let sets = Selections {
        nodes: pool.nodes(),
        ..Selections::default()
    };
    let mut out = Out::new(&pool, sets, |_| true);
    let owned = Owned {
        owners_of,
        dependents_of,
    };
    resolve_into(inv, &owned, 0..inv.objects.len(), &mut out);
    (out.selections, out.findings)
}

/// Codes of the findings [`resolve`] makes (about the selecting object).
pub(super) const CODES: &[&str] = &[
    "selector-invalid",
    "service-selects-nothing",
    "selector-required",
    "selector-empty",
    "selector-template-mismatch",
    "pod-unschedulable",
    "node-affinity-invalid",
];

/// [`resolve`] for the selector fields of `selecting` only, adding to `sets`: selections,
/// keys and sets already up to date with the inventory (a patch's, see
/// `setkeys::patch_sets`). A key not among them is matched by scanning `keys`. Also
/// returns how many objects the scans collected. `known`: the keys to index up front (those
/// the selecting objects matched before) when given; any other is then found by reading
/// every key's hash (rarely: a selector changed). Else every key of the selecting objects'
/// namespaces is indexed.
pub(super) fn resolve_patched(
    inv: &Inventory,
    keys: &Keys,
    (owners_of, dependents_of): (&Adjacency, &Adjacency),
    selecting: impl Iterator<Item = usize>,
    sets: Selections,
    known: Option<&[u32]>,
) -> (Selections, Vec<Diagnostic>, usize) {
    let selecting: Vec<usize> = selecting.collect();
    let scan = Scan::new(keys);
    let owned = Owned {
        owners_of,
        dependents_of,
    };
    if let Some(known) = known {
        let mut out = Out::new(&scan, sets, |_| false);
        for &id in known {
            if let Some(k) = out.selections.keys.get(id as usize) {
                out.remember(k.hash, id);
            }
        }
        out.scan_misses = true;
        resolve_into(inv, &owned, selecting.into_iter(), &mut out);
        return (out.selections, out.findings, scan.looked_at());
    }
    // Keys are looked up in the namespaces of the selecting objects (Pods, pod templates,
    // an HPA's target) or in none (Namespaces, Nodes, a Pod's Node).
    let mut spaces: HashSet<&str> = selecting
        .iter()
        .map(|&i| inv.objects[i].namespace())
        .collect();
    spaces.insert("");
    let mut out = Out::new(&scan, sets, |k| spaces.contains(k.ns()));
    resolve_into(inv, &owned, selecting.into_iter(), &mut out);
    (out.selections, out.findings, scan.looked_at())
}

/// [`resolve`] for the selector fields of `selecting` only, against the keys of `known`
/// alone (a patch's, when no matched set changed): `None` when a field's key is none of
/// them (its members would have to be looked for).
pub(super) fn resolve_known(
    inv: &Inventory,
    owners_of: &Adjacency,
    dependents_of: &Adjacency,
    selecting: impl Iterator<Item = usize>,
    known: Selections,
) -> Option<(Selections, Vec<Diagnostic>)> {
    let pool = Unknown::default();
    let mut out = Out::new(&pool, known, |_| true);
    let owned = Owned {
        owners_of,
        dependents_of,
    };
    resolve_into(inv, &owned, selecting, &mut out);
    (!pool.0.get()).then_some((out.selections, out.findings))
}

/// Candidates of no key, noting that one was asked for.
#[derive(Default)]
struct Unknown(std::cell::Cell<bool>);

impl Candidates for Unknown {
    fn matching(&self, _: &Inventory, _: &SetKey) -> Vec<usize> {
        self.0.set(true);
        Vec::new()
    }
}

/// Whether a finding about selecting object `o` counts what a key of `class` matches:
/// a Service's that it selects nothing, a Pod's that it fits no Node (whose message also
/// counts the Nodes).
pub(super) fn counts_matches(o: &Object, class: Class) -> bool {
    match (&*o.id.group, &*o.id.kind) {
        ("", "Service") => matches!(class, Class::Pods | Class::Templates),
        ("", "Pod") => class == Class::Nodes,
        _ => false,
    }
}

/// The selector fields of `selecting`, into `out`.
fn resolve_into(
    inv: &Inventory,
    owned: &Owned<'_>,
    selecting: impl Iterator<Item = usize>,
    out: &mut Out<'_>,
) {
    for i in selecting {
        let o = &inv.objects[i];
        match (&*o.id.group, &*o.id.kind) {
            ("", "Service") => service(inv, i, o, out),
            ("", "ReplicationController") => {
                let sel = map_selector(o.get_path("spec.selector")).ok().flatten();
                workload(inv, owned, i, o, sel, out);
            }
            ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
            | ("batch", "Job") => {
                let spec_selector = o.get_path("spec.selector");
                match label_selector_from_value(spec_selector) {
                    Ok(sel) => {
                        if &*o.id.group == "apps" && !(sel.is_none() && o.defaults_selector()) {
                            check_apps_selector(i, o, spec_selector, sel.as_ref(), out);
                        }
                        workload(inv, owned, i, o, sel, out);
                    }
                    Err(e) => out.finding(
                        i,
                        o,
                        Severity::Error,
                        "selector-invalid",
                        format!(
                            "spec.selector: Invalid value: {}: invalid label selector: {e}",
                            go_value(spec_selector)
                        ),
                    ),
                }
            }
            ("policy", "PodDisruptionBudget") => {
                let sel = labeled(i, o, "spec.selector", out);
                pick_pods_and_templates(inv, i, o.namespace(), sel.as_ref(), "spec.selector", out);
            }
            ("networking.k8s.io", "NetworkPolicy") => network_policy(inv, i, o, out),
            ("autoscaling", "HorizontalPodAutoscaler") => hpa_target(inv, i, o, out),
            ("", "Pod") => pod_nodes(inv, i, o, out),
            _ => {}
        }
    }
}

struct Out<'p> {
    selections: Selections,
    findings: Vec<Diagnostic>,
    /// Key hash → key id in `selections`; `spill`: keys whose hash another key took.
    index: HashMap<u64, u32>,
    spill: Vec<u32>,
    /// Whether a key found in neither is looked for among every key (by its hash, then
    /// its text), instead of being taken for new.
    scan_misses: bool,
    /// Where the members of a key not matched yet are found.
    pool: &'p dyn Candidates,
}

impl<'p> Out<'p> {
    /// Over `selections`, whose keys `lookup` picks can be found again.
    fn new(
        pool: &'p dyn Candidates,
        selections: Selections,
        lookup: impl Fn(&SetKey) -> bool,
    ) -> Out<'p> {
        let mut out = Out {
            selections: Selections::default(),
            findings: Vec::new(),
            index: HashMap::default(),
            spill: Vec::new(),
            scan_misses: false,
            pool,
        };
        for (id, k) in selections.keys.iter().enumerate() {
            if lookup(&k.key) {
                out.remember(k.key.hash(), id as u32);
            }
        }
        out.selections = selections;
        out
    }

    fn remember(&mut self, hash: u64, id: u32) {
        if let std::collections::hash_map::Entry::Vacant(e) = self.index.entry(hash) {
            e.insert(id);
        } else {
            self.spill.push(id);
        }
    }

    /// The key of `class`, `ns` and `canon` (equal selectors' canonical text) and how many
    /// objects it matches: matched through the pool, by `matcher`, the first time.
    fn matched(
        &mut self,
        inv: &Inventory,
        class: Class,
        ns: &str,
        canon: String,
        matcher: impl FnOnce() -> Matcher,
    ) -> (u32, usize) {
        let hash = setkeys::key_hash(class, ns, &canon);
        let keys = &self.selections.keys;
        let is = |id: &u32| keys[*id as usize].key.is(class, ns, &canon);
        let found = self
            .index
            .get(&hash)
            .filter(|id| is(id))
            .or_else(|| self.spill.iter().find(|id| is(id)))
            .copied();
        let scanned = match found {
            None if self.scan_misses => keys
                .iter()
                .position(|k| k.hash == hash && k.key.is(class, ns, &canon))
                .map(|id| id as u32),
            _ => None,
        };
        if let Some(id) = scanned {
            self.remember(hash, id);
        }
        let id = match found.or(scanned) {
            Some(id) => id,
            None => {
                let key = SetKey::new(class, ns, canon, hash, matcher());
                let members = self.pool.matching(inv, &key);
                let set = self
                    .selections
                    .add_set(members.into_iter().map(|i| i as u32).collect::<Members>());
                let id = self.selections.add_key(key, set);
                self.remember(hash, id);
                id
            }
        };
        (id, self.selections.key_set(id).len())
    }

    /// Object `from` selects key `key`'s set but `except` through field `via`.
    fn select(&mut self, from: usize, via: &'static str, key: u32, except: Vec<u32>) {
        self.selections.select(from, via, key, except);
    }

    /// Object `from` selects through `via` the first object with this identity, if any.
    fn first(
        &mut self,
        inv: &Inventory,
        from: usize,
        via: &'static str,
        (group, kind, ns, name): (&str, &str, &str, &str),
    ) {
        let canon = setkeys::id_canon(group, kind, name);
        let (key, _) = self.matched(inv, Class::Id, ns, canon, || Matcher::Id {
            group: group.into(),
            kind: kind.into(),
            name: name.into(),
        });
        self.select(from, via, key, Vec::new());
    }

    fn finding(&mut self, i: usize, o: &Object, sev: Severity, code: &'static str, msg: String) {
        self.findings.push(o.finding(i, sev, code, msg));
    }
}

/// The owner edges, to tell which Pods a workload owns.
struct Owned<'g> {
    owners_of: &'g Adjacency,
    dependents_of: &'g Adjacency,
}

impl Owned<'_> {
    /// Members of `set` that `w` owns directly or through an object it owns (a ReplicaSet,
    /// a Job), ascending: from `w`'s dependents when they are fewer than the set's members,
    /// else by looking at each member's owners.
    fn members(&self, w: usize, set: &[u32]) -> Vec<u32> {
        let direct = self.dependents_of.get(w);
        let two_hops: usize = direct
            .iter()
            .map(|e| self.dependents_of.get(e.to_ix()).len())
            .sum();
        let mut out: Vec<u32> = if direct.len() + two_hops <= set.len() {
            direct
                .iter()
                .flat_map(|e| {
                    std::iter::once(e.to_ix())
                        .chain(self.dependents_of.get(e.to_ix()).iter().map(|e| e.to_ix()))
                })
                .map(|p| p as u32)
                .filter(|p| set.binary_search(p).is_ok())
                .collect()
        } else {
            set.iter()
                .copied()
                .filter(|&p| {
                    self.owners_of.get(p as usize).iter().any(|e| {
                        e.from_ix() == w
                            || self
                                .owners_of
                                .get(e.from_ix())
                                .iter()
                                .any(|e2| e2.from_ix() == w)
                    })
                })
                .collect()
        };
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A `metav1.LabelSelector` field; an unparsable one is a finding and selects nothing.
fn labeled(i: usize, o: &Object, path: &'static str, out: &mut Out<'_>) -> Option<Selector> {
    match label_selector_from_value(o.get_path(path)) {
        Ok(sel) => sel,
        Err(e) => {
            out.finding(
                i,
                o,
                Severity::Error,
                "selector-invalid",
                format!(
                    "{path}: Invalid value: {}: invalid label selector: {e}",
                    go_value(o.get_path(path))
                ),
            );
            None
        }
    }
}

/// Edges to the Pods and pod templates `sel` picks in `ns`; the number picked.
fn pick_pods_and_templates(
    inv: &Inventory,
    from: usize,
    ns: &str,
    sel: Option<&Selector>,
    via: &'static str,
    out: &mut Out<'_>,
) -> usize {
    let Some(sel) = sel else { return 0 };
    let canon = setkeys::labels_canon(sel);
    let pods = out.matched(inv, Class::Pods, ns, canon.clone(), || {
        Matcher::Labels(sel.clone())
    });
    let templates = out.matched(inv, Class::Templates, ns, canon, || {
        Matcher::Labels(sel.clone())
    });
    out.select(from, via, pods.0, Vec::new());
    out.select(from, template_via(via), templates.0, Vec::new());
    pods.1 + templates.1
}

fn template_via(via: &'static str) -> &'static str {
    match via {
        "spec.selector" => "spec.selector (pod template)",
        "spec.podSelector" => "spec.podSelector (pod template)",
        _ => via,
    }
}

/// Service `spec.selector` → Pods and pod templates; a selector that picks nothing is
/// reported (ExternalName Services and Services without a selector pick nothing by design).
fn service(inv: &Inventory, i: usize, o: &Object, out: &mut Out<'_>) {
    if o.get_str("spec.type") == Some("ExternalName") {
        return;
    }
    let sel = match map_selector(o.get_path("spec.selector")) {
        Ok(sel) => sel,
        Err(e) => {
            out.finding(
                i,
                o,
                Severity::Error,
                "selector-invalid",
                format!("spec.selector: {e}"),
            );
            return;
        }
    };
    let Some(sel) = sel else { return };
    if pick_pods_and_templates(inv, i, o.namespace(), Some(&sel), "spec.selector", out) == 0 {
        out.finding(
            i,
            o,
            Severity::Warning,
            "service-selects-nothing",
            format!(
                "selector {sel} matches no Pod and no workload's pod template in namespace {}",
                Quoted(o.namespace())
            ),
        );
    }
}

/// A workload's `spec.selector` → its Pods (those it does not already own, directly or
/// through a ReplicaSet/Job it owns).
fn workload(
    inv: &Inventory,
    owned: &Owned<'_>,
    i: usize,
    o: &Object,
    sel: Option<Selector>,
    out: &mut Out<'_>,
) {
    let Some(sel) = sel.filter(|s| !s.is_empty()) else {
        return;
    };
    let ns = o.namespace();
    let canon = setkeys::labels_canon(&sel);
    let pods = out.matched(inv, Class::Pods, ns, canon, || Matcher::Labels(sel));
    let except = owned.members(i, out.selections.key_set(pods.0));
    out.select(i, "spec.selector", pods.0, except);
}

/// apps/v1 validation of a workload's selector against its own template
/// (`ValidateDeploymentSpec` and friends in pkg/apis/apps/validation).
fn check_apps_selector(
    i: usize,
    o: &Object,
    raw: Option<RawRef<'_>>,
    sel: Option<&Selector>,
    out: &mut Out<'_>,
) {
    let kind_lower = o.kind().to_ascii_lowercase();
    let Some(sel) = sel else {
        out.finding(
            i,
            o,
            Severity::Error,
            "selector-required",
            "spec.selector: Required value".into(),
        );
        return;
    };
    if sel.is_empty() {
        out.finding(
            i,
            o,
            Severity::Error,
            "selector-empty",
            format!(
                "spec.selector: Invalid value: {}: empty selector is invalid for {kind_lower}",
                go_value(raw)
            ),
        );
        return;
    }
    let labels = o
        .get_path("spec.template.metadata.labels")
        .and_then(RawRef::as_object);
    if !sel.matches(&JsonLabels(labels)) {
        out.finding(
            i,
            o,
            Severity::Error,
            "selector-template-mismatch",
            format!(
                "spec.template.metadata.labels: Invalid value: {}: `selector` does not match template `labels`",
                go_string_map(labels)
            ),
        );
    }
}

/// NetworkPolicy `spec.podSelector` (empty = every Pod of the namespace) → Pods and pod
/// templates; `namespaceSelector` of ingress `from` / egress `to` peers → Namespaces.
fn network_policy(inv: &Inventory, i: usize, o: &Object, out: &mut Out<'_>) {
    let sel = labeled(i, o, "spec.podSelector", out);
    pick_pods_and_templates(inv, i, o.namespace(), sel.as_ref(), "spec.podSelector", out);
    for (rules, peers) in [("ingress", "from"), ("egress", "to")] {
        let Some(rules) = o
            .get_path(&format!("spec.{rules}"))
            .and_then(RawRef::as_array)
        else {
            continue;
        };
        for peer in rules
            .iter()
            .filter_map(|r| r.get(peers).and_then(RawRef::as_array))
            .flatten()
        {
            let Ok(Some(ns_sel)) = label_selector_from_value(peer.get("namespaceSelector")) else {
                continue;
            };
            let canon = setkeys::labels_canon(&ns_sel);
            let namespaces = out.matched(inv, Class::Namespaces, "", canon, || {
                Matcher::Labels(ns_sel)
            });
            out.select(i, "namespaceSelector", namespaces.0, Vec::new());
        }
    }
}

/// HorizontalPodAutoscaler `spec.scaleTargetRef` → the scaled object in the same namespace.
fn hpa_target(inv: &Inventory, i: usize, o: &Object, out: &mut Out<'_>) {
    let Some(target) = o.get_path("spec.scaleTargetRef") else {
        return;
    };
    let s = |k: &str| target.get(k).and_then(RawRef::as_str).unwrap_or("");
    let group = crate::kinds::canonical_group(crate::model::group_of(s("apiVersion")), s("kind"));
    let id = (group, s("kind"), o.namespace(), s("name"));
    out.first(inv, i, "spec.scaleTargetRef", id);
}

/// Pod → the Node it runs on (`spec.nodeName`), and → the Nodes of the input it can be
/// scheduled on by `spec.nodeSelector` and required node affinity (component-helpers'
/// `nodeaffinity.GetRequiredNodeAffinity`; taints and resources are not considered).
fn pod_nodes(inv: &Inventory, i: usize, o: &Object, out: &mut Out<'_>) {
    if let Some(node) = o.get_str("spec.nodeName").filter(|n| !n.is_empty()) {
        out.first(inv, i, "spec.nodeName", ("", "Node", "", node));
        return;
    }
    let node_selector = match map_selector(o.get_path("spec.nodeSelector")) {
        Ok(s) => s,
        Err(e) => {
            out.finding(
                i,
                o,
                Severity::Error,
                "selector-invalid",
                format!("spec.nodeSelector: {e}"),
            );
            return;
        }
    };
    let affinity_raw =
        o.get_path("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
    let affinity = match affinity_raw {
        None => None,
        Some(v) if v.is_null() => None,
        Some(v) => match NodeSelector::from_value(v) {
            Ok(s) => Some(s),
            Err(e) => {
                out.finding(
                    i,
                    o,
                    Severity::Error,
                    "node-affinity-invalid",
                    format!("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: {e}"),
                );
                return;
            }
        },
    };
    if node_selector.is_none() && affinity.is_none() {
        return;
    }
    let canon = setkeys::nodes_canon(o.get_path("spec.nodeSelector"), affinity_raw);
    let (fitting, fits) = out.matched(inv, Class::Nodes, "", canon, || Matcher::Nodes {
        node_selector,
        affinity,
    });
    let nodes = out.selections.nodes;
    out.select(
        i,
        "spec.nodeSelector/affinity (schedulable on)",
        fitting,
        Vec::new(),
    );
    if fits == 0 && nodes > 0 {
        out.finding(
            i,
            o,
            Severity::Warning,
            "pod-unschedulable",
            format!(
                "no Node of the input satisfies the Pod's nodeSelector/required node affinity ({} Nodes checked)",
                nodes
            ),
        );
    }
}

/// A JSON value as Go's `%#v` would print the decoded Go value, close enough for messages.
fn go_value(v: Option<RawRef<'_>>) -> String {
    match v {
        Some(v) if !v.is_null() => v.to_string(),
        _ => "null".into(),
    }
}

/// Go's `%#v` of a `map[string]string` (non-string values are left out).
fn go_string_map(m: Option<RawObject<'_>>) -> String {
    gocompat::fmt::string_map(
        m.into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k, v.as_str()?))),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::graph::{EdgeKind, Graph};
    use crate::model::test_inventory;

    fn node(name: &str, labels: serde_json::Value) -> serde_json::Value {
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}})
    }

    /// (from name, to name, via) of every selector edge.
    fn edges(g: &Graph, inv: &crate::model::Inventory) -> Vec<(String, String, &'static str)> {
        let mut out = Vec::new();
        for i in 0..inv.objects.len() {
            for e in g.selects(i) {
                let EdgeKind::Selector { via } = e.kind else {
                    continue;
                };
                out.push((
                    inv.objects[e.from_ix()].name().to_string(),
                    inv.objects[e.to_ix()].name().to_string(),
                    via.as_str(),
                ));
            }
        }
        out
    }

    fn codes(g: &Graph) -> Vec<(&'static str, String)> {
        g.findings()
            .iter()
            .map(|f| (f.code, f.message.to_string()))
            .collect()
    }

    #[test]
    fn node_affinity_picks_exactly_the_nodes_upstream_would() {
        let inv = test_inventory(&[
            node("n-small", json!({"cores": "4", "zone": "a"})),
            node("n-big", json!({"cores": "64", "zone": "b", "gpu": "yes"})),
            node("n-big-c", json!({"cores": "32", "zone": "c", "gpu": "yes"})),
            node("n-nan", json!({"cores": "lots", "zone": "a", "gpu": "yes"})),
            node("n-named", json!({"zone": "z"})),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "x"},
            "spec": {"nodeSelector": {"gpu": "yes"},
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [
                            {"key": "cores", "operator": "Gt", "values": ["8"]},
                            {"key": "zone", "operator": "In", "values": ["a", "b"]}]},
                        {"matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["n-named"]}]}
                    ]}}}}}),
        ]);
        let g = Graph::build(&inv);
        // n-big-c is out of zone, n-nan's cores is not an integer, n-small is too small,
        // n-named matches the field term but not the nodeSelector.
        assert_eq!(
            edges(&g, &inv),
            vec![(
                "p".to_string(),
                "n-big".to_string(),
                "spec.nodeSelector/affinity (schedulable on)"
            )]
        );
    }

    #[test]
    fn a_pod_that_fits_no_node_is_reported() {
        let inv = test_inventory(&[
            node("n1", json!({"zone": "a"})),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "x"},
                "spec": {"nodeSelector": {"zone": "b"}}}),
        ]);
        let g = Graph::build(&inv);
        assert!(edges(&g, &inv).is_empty());
        assert!(codes(&g).iter().any(|(c, _)| *c == "pod-unschedulable"));
    }

    #[test]
    fn service_selects_pods_and_pod_templates_in_its_namespace() {
        let inv = test_inventory(&[
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "shop"},
                "spec": {"selector": {"app": "web"}}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
                "spec": {"selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web", "tier": "fe"}}}}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "loose", "namespace": "shop",
                "labels": {"app": "web"}}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "elsewhere", "namespace": "other",
                "labels": {"app": "web"}}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ghost", "namespace": "shop"},
                "spec": {"selector": {"app": "nobody"}}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext", "namespace": "shop"},
                "spec": {"type": "ExternalName", "externalName": "example.com"}}),
        ]);
        let g = Graph::build(&inv);
        assert_eq!(
            edges(&g, &inv),
            vec![
                ("web".into(), "loose".into(), "spec.selector"),
                ("web".into(), "web".into(), "spec.selector (pod template)"),
                ("web".into(), "loose".into(), "spec.selector"),
            ]
        );
        let c = codes(&g);
        assert_eq!(
            c,
            vec![(
                "service-selects-nothing",
                "selector app=nobody matches no Pod and no workload's pod template in namespace \"shop\"".to_string()
            )]
        );
    }

    #[test]
    fn workload_selector_must_match_its_template() {
        let inv = test_inventory(&[
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "a"},
                "spec": {"selector": {"matchLabels": {"app": "x"}},
                    "template": {"metadata": {"labels": {"app": "y", "b": "c"}}}}}),
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s", "namespace": "a"},
                "spec": {"selector": {}, "template": {}}}),
        ]);
        let g = Graph::build(&inv);
        assert_eq!(
            codes(&g),
            vec![
                ("selector-template-mismatch", "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\", \"b\":\"c\"}: `selector` does not match template `labels`".to_string()),
                ("selector-empty", "spec.selector: Invalid value: {}: empty selector is invalid for statefulset".to_string()),
            ]
        );
    }

    #[test]
    fn network_policy_selects_pods_and_namespaces_by_their_labels() {
        let inv = test_inventory(&[
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "mon", "labels": {"team": "obs"}}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "shop"}}),
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                "metadata": {"name": "np", "namespace": "shop"},
                "spec": {"podSelector": {}, "ingress": [{"from": [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "shop"}}},
                    {"namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "Exists"}]}}]}]}}),
        ]);
        let g = Graph::build(&inv);
        assert_eq!(
            edges(&g, &inv),
            vec![
                ("np".into(), "p".into(), "spec.podSelector"),
                ("np".into(), "shop".into(), "namespaceSelector"),
                ("np".into(), "mon".into(), "namespaceSelector"),
            ]
        );
    }

    #[test]
    fn equal_selectors_share_one_matched_set_and_keep_their_own_exceptions() {
        let pod = |name: &str, owner: Option<&str>| {
            let mut p = json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "a", "labels": {"app": "x"}}});
            if let Some(o) = owner {
                p["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1",
                    "kind": "ReplicaSet", "name": o, "uid": o, "controller": true}]);
            }
            p
        };
        let rs = |name: &str, sel: serde_json::Value| {
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": name, "namespace": "a", "uid": name},
                "spec": {"selector": sel, "template": {"metadata": {"labels": {"app": "x"}}}}})
        };
        let svc = |name: &str| {
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "a"},
                "spec": {"selector": {"app": "x"}}})
        };
        let inv = test_inventory(&[
            svc("s1"),
            rs("r1", json!({"matchLabels": {"app": "x"}})),
            pod("p1", Some("r1")),
            svc("s2"),
            rs(
                "r2",
                json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["x", "x"]}]}),
            ),
            pod("p2", None),
            svc("s3"),
        ]);
        let g = Graph::build(&inv);
        // Pods {p1, p2} and pod templates {r1, r2}, whichever way the selectors are written.
        assert_eq!(g.selectors.set_count(), 2);
        let e = edges(&g, &inv);
        let pairs: Vec<(&str, &str)> = e.iter().map(|(a, b, _)| (a.as_str(), b.as_str())).collect();
        assert_eq!(
            pairs,
            vec![
                ("s1", "p1"),
                ("s1", "p2"),
                ("s1", "r1"),
                ("s1", "r2"),
                ("r1", "p2"),
                ("s2", "p1"),
                ("s2", "p2"),
                ("s2", "r1"),
                ("s2", "r2"),
                ("r2", "p1"),
                ("r2", "p2"),
                ("s3", "p1"),
                ("s3", "p2"),
                ("s3", "r1"),
                ("s3", "r2"),
            ]
        );
        let by: Vec<&str> = g
            .selected_by(2)
            .map(|e| inv.objects[e.from_ix()].name())
            .collect();
        assert_eq!(by, vec!["s1", "s2", "r2", "s3"]);
    }

    #[test]
    fn workloads_do_not_select_pods_they_own_but_do_select_strays() {
        let inv = test_inventory(&[
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "a", "uid": "u1"},
                "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": {"metadata": {"labels": {"app": "x"}}}}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "owned", "namespace": "a", "labels": {"app": "x"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1", "controller": true}]}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "stray", "namespace": "a", "labels": {"app": "x"}}}),
        ]);
        let g = Graph::build(&inv);
        assert_eq!(
            edges(&g, &inv),
            vec![("rs".into(), "stray".into(), "spec.selector")]
        );
    }
}
