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

use rustc_hash::FxHashMap as HashMap;

use super::selsets::Selections;
use super::Adjacency;
use crate::diagnostic::{Diagnostic, Severity};
use crate::gocompat::{self, quote::Quoted};
use crate::kinds::pod_template;
use crate::model::{Inventory, Object};
use crate::selector::{label_selector_from_value, map_selector, LabelGet, NodeSelector};
use crate::selector::{Operator, Selector};
use crate::value::{RawObject, RawRef};

/// Selections (selecting object → what it matched) and selector findings. The owner edges
/// (`owners_of`, `dependents_of`) keep a workload's selection off the Pods it already owns.
pub(super) fn resolve(
    inv: &Inventory,
    owners_of: &Adjacency,
    dependents_of: &Adjacency,
) -> (Selections, Vec<Diagnostic>) {
    let all = 0..inv.objects.len();
    resolve_among(inv, owners_of, dependents_of, all.clone(), all)
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

/// [`resolve`] for the selector fields of `selecting` only, picking among `pool`
/// (ascending positions), which must hold every object they can pick or name: the
/// objects of their namespaces, every Namespace and every Node.
pub(super) fn resolve_among(
    inv: &Inventory,
    owners_of: &Adjacency,
    dependents_of: &Adjacency,
    selecting: impl Iterator<Item = usize>,
    pool: impl Iterator<Item = usize>,
) -> (Selections, Vec<Diagnostic>) {
    let pool = Pool::build(inv, pool);
    let owned = Owned {
        owners_of,
        dependents_of,
    };
    let mut out = Out::default();
    for i in selecting {
        let o = &inv.objects[i];
        match (&*o.id.group, &*o.id.kind) {
            ("", "Service") => service(&pool, i, o, &mut out),
            ("", "ReplicationController") => {
                let sel = map_selector(o.get_path("spec.selector")).ok().flatten();
                workload(&pool, &owned, i, o, sel, &mut out);
            }
            ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
            | ("batch", "Job") => {
                let spec_selector = o.get_path("spec.selector");
                match label_selector_from_value(spec_selector) {
                    Ok(sel) => {
                        if &*o.id.group == "apps" && !(sel.is_none() && o.defaults_selector()) {
                            check_apps_selector(i, o, spec_selector, sel.as_ref(), &mut out);
                        }
                        workload(&pool, &owned, i, o, sel, &mut out);
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
                let sel = labeled(i, o, "spec.selector", &mut out);
                pick_pods_and_templates(
                    &pool,
                    i,
                    o.namespace(),
                    sel.as_ref(),
                    "spec.selector",
                    &mut out,
                );
            }
            ("networking.k8s.io", "NetworkPolicy") => network_policy(inv, &pool, i, o, &mut out),
            ("autoscaling", "HorizontalPodAutoscaler") => hpa_target(&pool, i, o, &mut out),
            ("", "Pod") => pod_nodes(inv, &pool, i, o, &mut out),
            _ => {}
        }
    }
    (out.selections, out.findings)
}

/// What a selector picks from: the pool it searches.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Class {
    Pods,
    Templates,
    Namespaces,
    Nodes,
}

/// A selector in a form where equal selectors are equal: label requirements sorted, values
/// sorted and de-duplicated; node scheduling constraints as their manifest text. One string
/// each (length-prefixed parts, so no two selectors share one), to keep the cache small.
#[derive(PartialEq, Eq, Hash)]
enum Canon {
    Labels(String),
    Nodes(String),
}

impl Canon {
    fn labels(sel: &Selector) -> Canon {
        let mut reqs: Vec<String> = sel
            .requirements()
            .iter()
            .map(|r| {
                let mut values: Vec<&str> = r.values.iter().map(String::as_str).collect();
                values.sort_unstable();
                values.dedup();
                let mut s = String::new();
                part(&mut s, &r.key);
                part(&mut s, r.operator.as_str());
                for v in values {
                    part(&mut s, v);
                }
                s
            })
            .collect();
        reqs.sort_unstable();
        let mut s = String::new();
        for r in &reqs {
            part(&mut s, r);
        }
        Canon::Labels(s)
    }

    fn nodes(node_selector: Option<RawRef<'_>>, affinity: Option<RawRef<'_>>) -> Canon {
        let mut s = String::new();
        for v in [node_selector, affinity] {
            part(&mut s, &v.map(|v| v.to_string()).unwrap_or_default());
        }
        Canon::Nodes(s)
    }
}

/// Appends `text` to `s` with its length before it.
fn part(s: &mut String, text: &str) {
    s.push_str(&text.len().to_string());
    s.push(':');
    s.push_str(text);
}

/// Which matched set a selector yields: what it searches, in which namespace, how.
type SetKey<'a> = (Class, &'a str, Canon);

#[derive(Default)]
struct Out<'a> {
    selections: Selections,
    findings: Vec<Diagnostic>,
    /// Sets already matched (ids in `selections`), shared by equal selectors.
    sets: HashMap<SetKey<'a>, u32>,
}

impl<'a> Out<'a> {
    /// The set `key` matches and its size: computed by `matching` (ascending positions)
    /// the first time.
    fn matched(&mut self, key: SetKey<'a>, matching: impl FnOnce() -> Vec<usize>) -> (u32, usize) {
        let selections = &mut self.selections;
        let id = *self.sets.entry(key).or_insert_with(|| {
            selections.add_set(matching().into_iter().map(|i| i as u32).collect())
        });
        (id, self.selections.set(id).len())
    }

    /// Object `from` selects set `set` but `except` through field `via`.
    fn select(&mut self, from: usize, via: &'static str, set: u32, except: Vec<u32>) {
        self.selections.select(from, via, set, except);
    }

    /// Object `from` selects the one object `to` through `via`.
    fn edge(&mut self, from: usize, to: usize, via: &'static str) {
        let set = self.selections.add_set(vec![to as u32]);
        self.select(from, via, set, Vec::new());
    }

    fn finding(&mut self, i: usize, o: &Object, sev: Severity, code: &'static str, msg: String) {
        self.findings.push(o.finding(i, sev, code, msg));
    }
}

/// A label set read from a JSON object (`spec.template.metadata.labels`).
struct JsonLabels<'a>(Option<RawObject<'a>>);

impl LabelGet for JsonLabels<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        self.0?.get(key).and_then(RawRef::as_str)
    }
}

/// A Namespace's labels plus the `kubernetes.io/metadata.name` label the API server sets
/// on every Namespace (since 1.21).
struct NamespaceLabels<'a>(&'a Object);

impl LabelGet for NamespaceLabels<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        match self.0.labels().get(key) {
            Some(v) => Some(v),
            None if key == "kubernetes.io/metadata.name" => Some(self.0.name()),
            None => None,
        }
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
            .map(|e| self.dependents_of.get(e.to).len())
            .sum();
        let mut out: Vec<u32> = if direct.len() + two_hops <= set.len() {
            direct
                .iter()
                .flat_map(|e| {
                    std::iter::once(e.to).chain(self.dependents_of.get(e.to).iter().map(|e| e.to))
                })
                .map(|p| p as u32)
                .filter(|p| set.binary_search(p).is_ok())
                .collect()
        } else {
            set.iter()
                .copied()
                .filter(|&p| {
                    self.owners_of.get(p as usize).iter().any(|e| {
                        e.from == w || self.owners_of.get(e.from).iter().any(|e2| e2.from == w)
                    })
                })
                .collect()
        };
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// What selectors can pick, by namespace: Pods by their labels, workloads by their pod
/// template labels, Namespaces and Nodes.
#[derive(Default)]
struct Pool<'a> {
    pods: HashMap<&'a str, Bucket<'a>>,
    templates: HashMap<&'a str, Bucket<'a>>,
    namespaces: Vec<usize>,
    nodes: Vec<usize>,
    by_id: HashMap<(&'a str, &'a str, &'a str, &'a str), usize>,
}

/// Candidates of one namespace and a `(key, value)` → candidates posting list.
#[derive(Default)]
struct Bucket<'a> {
    all: Vec<(usize, JsonOrLabels<'a>)>,
    postings: HashMap<(&'a str, &'a str), Vec<usize>>,
}

/// Where a candidate's labels live.
#[derive(Clone, Copy)]
enum JsonOrLabels<'a> {
    Labels(&'a Object),
    Json(Option<RawObject<'a>>),
}

impl LabelGet for JsonOrLabels<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        match self {
            JsonOrLabels::Labels(o) => o.labels().get(key),
            JsonOrLabels::Json(m) => m.and_then(|m| m.get(key)).and_then(RawRef::as_str),
        }
    }
}

impl<'a> Bucket<'a> {
    fn add(&mut self, i: usize, labels: JsonOrLabels<'a>) {
        let pos = self.all.len();
        match labels {
            JsonOrLabels::Labels(o) => {
                for (k, v) in &o.labels() {
                    self.postings.entry((k, v)).or_default().push(pos);
                }
            }
            JsonOrLabels::Json(Some(m)) => {
                for (k, v) in m {
                    if let Some(v) = v.as_str() {
                        self.postings.entry((k, v)).or_default().push(pos);
                    }
                }
            }
            JsonOrLabels::Json(None) => {}
        }
        self.all.push((i, labels));
    }

    /// Candidates matching `sel`: through the posting list of its first equality
    /// requirement when it has one, else by scanning the namespace.
    fn select(&self, sel: &Selector) -> Vec<usize> {
        let eq = sel.requirements().iter().find_map(|r| match r.operator {
            Operator::Equals | Operator::DoubleEquals | Operator::In if r.values.len() == 1 => {
                Some((r.key.as_str(), r.values[0].as_str()))
            }
            _ => None,
        });
        let check = |&(i, labels): &(usize, JsonOrLabels<'a>)| sel.matches(&labels).then_some(i);
        match eq {
            Some(kv) => self
                .postings
                .get(&kv)
                .map(|ps| ps.iter().filter_map(|&p| check(&self.all[p])).collect())
                .unwrap_or_default(),
            None => self.all.iter().filter_map(check).collect(),
        }
    }
}

impl<'a> Pool<'a> {
    fn build(inv: &'a Inventory, among: impl Iterator<Item = usize>) -> Pool<'a> {
        let mut pool = Pool::default();
        for (i, o) in among.map(|i| (i, &inv.objects[i])) {
            let id = &o.id;
            pool.by_id
                .entry((&*id.group, &*id.kind, &*id.namespace, &*id.name))
                .or_insert(i);
            match (&*id.group, &*id.kind) {
                ("", "Pod") => pool
                    .pods
                    .entry(o.namespace())
                    .or_default()
                    .add(i, JsonOrLabels::Labels(o)),
                ("", "Namespace") => pool.namespaces.push(i),
                ("", "Node") => pool.nodes.push(i),
                _ => {
                    if let Some(path) = pod_template(&id.group, &id.kind) {
                        let labels = o
                            .get_path(path)
                            .and_then(|t| t.get("metadata"))
                            .and_then(|m| m.get("labels"))
                            .and_then(RawRef::as_object);
                        pool.templates
                            .entry(o.namespace())
                            .or_default()
                            .add(i, JsonOrLabels::Json(labels));
                    }
                }
            }
        }
        pool
    }

    fn pods(&self, ns: &str, sel: &Selector) -> Vec<usize> {
        self.pods.get(ns).map(|b| b.select(sel)).unwrap_or_default()
    }

    fn templates(&self, ns: &str, sel: &Selector) -> Vec<usize> {
        self.templates
            .get(ns)
            .map(|b| b.select(sel))
            .unwrap_or_default()
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
fn pick_pods_and_templates<'a>(
    pool: &Pool<'a>,
    from: usize,
    ns: &'a str,
    sel: Option<&Selector>,
    via: &'static str,
    out: &mut Out<'a>,
) -> usize {
    let Some(sel) = sel else { return 0 };
    let pods = out.matched((Class::Pods, ns, Canon::labels(sel)), || pool.pods(ns, sel));
    let templates = out.matched((Class::Templates, ns, Canon::labels(sel)), || {
        pool.templates(ns, sel)
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
fn service<'a>(pool: &Pool<'a>, i: usize, o: &'a Object, out: &mut Out<'a>) {
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
    if pick_pods_and_templates(pool, i, o.namespace(), Some(&sel), "spec.selector", out) == 0 {
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
fn workload<'a>(
    pool: &Pool<'a>,
    owned: &Owned<'_>,
    i: usize,
    o: &'a Object,
    sel: Option<Selector>,
    out: &mut Out<'a>,
) {
    let Some(sel) = sel.filter(|s| !s.is_empty()) else {
        return;
    };
    let ns = o.namespace();
    let pods = out.matched((Class::Pods, ns, Canon::labels(&sel)), || {
        pool.pods(ns, &sel)
    });
    let except = owned.members(i, out.selections.set(pods.0));
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
fn network_policy<'a>(
    inv: &'a Inventory,
    pool: &Pool<'a>,
    i: usize,
    o: &'a Object,
    out: &mut Out<'a>,
) {
    let sel = labeled(i, o, "spec.podSelector", out);
    pick_pods_and_templates(
        pool,
        i,
        o.namespace(),
        sel.as_ref(),
        "spec.podSelector",
        out,
    );
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
            let namespaces = out.matched((Class::Namespaces, "", Canon::labels(&ns_sel)), || {
                pool.namespaces
                    .iter()
                    .copied()
                    .filter(|&n| ns_sel.matches(&NamespaceLabels(&inv.objects[n])))
                    .collect()
            });
            out.select(i, "namespaceSelector", namespaces.0, Vec::new());
        }
    }
}

/// HorizontalPodAutoscaler `spec.scaleTargetRef` → the scaled object in the same namespace.
fn hpa_target(pool: &Pool<'_>, i: usize, o: &Object, out: &mut Out<'_>) {
    let Some(target) = o.get_path("spec.scaleTargetRef") else {
        return;
    };
    let s = |k: &str| target.get(k).and_then(RawRef::as_str).unwrap_or("");
    let group = crate::kinds::canonical_group(crate::model::group_of(s("apiVersion")), s("kind"));
    let key = (group, s("kind"), o.namespace(), s("name"));
    if let Some(&t) = pool.by_id.get(&key) {
        out.edge(i, t, "spec.scaleTargetRef");
    }
}

/// Pod → the Node it runs on (`spec.nodeName`), and → the Nodes of the input it can be
/// scheduled on by `spec.nodeSelector` and required node affinity (component-helpers'
/// `nodeaffinity.GetRequiredNodeAffinity`; taints and resources are not considered).
fn pod_nodes<'a>(inv: &'a Inventory, pool: &Pool<'a>, i: usize, o: &'a Object, out: &mut Out<'a>) {
    if let Some(node) = o.get_str("spec.nodeName").filter(|n| !n.is_empty()) {
        if let Some(&n) = pool.by_id.get(&("", "Node", "", node)) {
            out.edge(i, n, "spec.nodeName");
        }
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
    let canon = Canon::nodes(o.get_path("spec.nodeSelector"), affinity_raw);
    let fitting = out.matched((Class::Nodes, "", canon), || {
        pool.nodes
            .iter()
            .copied()
            .filter(|&n| {
                let node = &inv.objects[n];
                node_selector
                    .as_ref()
                    .is_none_or(|s| s.matches(&node.labels()))
                    && affinity
                        .as_ref()
                        .is_none_or(|a| a.matches(node.name(), &node.labels()))
            })
            .collect()
    });
    let (fitting, fits) = fitting;
    out.select(
        i,
        "spec.nodeSelector/affinity (schedulable on)",
        fitting,
        Vec::new(),
    );
    if fits == 0 && !pool.nodes.is_empty() {
        out.finding(
            i,
            o,
            Severity::Warning,
            "pod-unschedulable",
            format!(
                "no Node of the input satisfies the Pod's nodeSelector/required node affinity ({} Nodes checked)",
                pool.nodes.len()
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
                    inv.objects[e.from].name().to_string(),
                    inv.objects[e.to].name().to_string(),
                    via,
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
            .map(|e| inv.objects[e.from].name())
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
