//! Resolving references against the inventory: edges, dangling references, and the
//! selection-like links (ClusterRole aggregation, Service → EndpointSlices, StatefulSet
//! claim templates → their PVCs).

use std::ops::Range;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::deps::{self, PerObject};
use super::extract::extract_declaring;
use super::pod::{items, str_at};
use super::{findings, Dangling, Ref, RefGraph, Target};
use crate::diagnostic::Diagnostic;
use crate::graph::firsts::{id_hash, is_id, Firsts};
use crate::graph::{Adjacency, Edge, EdgeKind, EdgeName, Graph, Groups};
use crate::kinds::pod_template;
use crate::model::{group_of, Inventory, Object, ObjectId};
use crate::selector::label_selector_from_value;
use crate::value::{intern, RawRef, Str};

/// Objects one pool task links.
const LINK_CHUNK: usize = 4096;
/// Past this many references in one object, duplicates are found with a set.
const LINEAR_DEDUP: usize = 16;
/// Replicas of a StatefulSet whose claims are looked for.
const MAX_CLAIM_ORDINALS: i64 = 1000;

/// What the links of every object are resolved against.
pub struct Lookup<'a> {
    objects: &'a [Object],
    /// First position of each identity (see `firsts.rs`).
    by_id: Firsts,
    /// EndpointSlices by (namespace, `kubernetes.io/service-name` label).
    slices: FxHashMap<(&'a str, &'a str), Vec<usize>>,
    cluster_roles: Vec<usize>,
}

impl<'a> Lookup<'a> {
    /// The objects at `positions` (ascending).
    pub fn build(inv: &'a Inventory, positions: impl Iterator<Item = usize>) -> Lookup<'a> {
        let objects = &inv.objects;
        let mut by_id = Firsts::with_capacity(positions.size_hint().0);
        let mut slices: FxHashMap<(&str, &str), Vec<usize>> = FxHashMap::default();
        let mut cluster_roles = Vec::new();
        for i in positions {
            let Some(o) = inv.objects.get(i) else {
                continue;
            };
            let id = &o.id;
            let (g, k, ns, name) = (&*id.group, &*id.kind, &*id.namespace, &*id.name);
            by_id.insert(id_hash(g, k, ns, name), i, |j| {
                is_id(&objects[j].id, g, k, ns, name)
            });
            match (&*id.group, &*id.kind) {
                ("discovery.k8s.io", "EndpointSlice") => {
                    if let Some(svc) = o.labels().get("kubernetes.io/service-name") {
                        slices.entry((&id.namespace, svc)).or_default().push(i);
                    }
                }
                ("rbac.authorization.k8s.io", "ClusterRole") => cluster_roles.push(i),
                _ => {}
            }
        }
        Lookup {
            objects,
            by_id,
            slices,
            cluster_roles,
        }
    }

    /// The first object (among those looked up) with identity `t`.
    fn find(&self, t: &Target<'_>) -> Option<usize> {
        let (g, k, ns, name) = (t.group, t.kind, t.namespace, t.name);
        self.by_id.get(id_hash(g, k, ns, name), |i| {
            is_id(&self.objects[i].id, g, k, ns, name)
        })
    }
}

/// The edges of one object, deduplicated by (target, relationship) in field order.
struct ObjectEdges {
    from: usize,
    edges: Vec<Edge>,
    start: usize,
    seen: FxHashSet<(usize, EdgeName)>,
}

impl ObjectEdges {
    fn add(&mut self, to: usize, rel: &'static str) -> bool {
        if to == self.from {
            return false;
        }
        let rel = EdgeName::of(rel);
        let mine = &self.edges[self.start..];
        let dup = if mine.len() < LINEAR_DEDUP {
            mine.iter()
                .any(|e| e.to_ix() == to && e.kind == EdgeKind::Ref { rel })
        } else {
            if self.seen.is_empty() {
                self.seen.extend(mine.iter().filter_map(|e| match e.kind {
                    EdgeKind::Ref { rel } => Some((e.to_ix(), rel)),
                    _ => None,
                }));
            }
            !self.seen.insert((to, rel))
        };
        if !dup {
            if !self.seen.is_empty() {
                self.seen.insert((to, rel));
            }
            self.edges
                .push(Edge::new(self.from, to, EdgeKind::Ref { rel }));
        }
        !dup
    }

    fn next_object(&mut self, from: usize) {
        self.from = from;
        self.start = self.edges.len();
        self.seen.clear();
    }
}

/// What linking some objects (their references as sources) yields.
#[derive(Default)]
pub struct Linked {
    /// Grouped by source, ascending, in field order.
    pub edges: Vec<Edge>,
    /// With their sources, ascending.
    pub dangling: Vec<(usize, Dangling)>,
    /// Missing-target, port and target-port findings, by source.
    pub findings: Vec<Diagnostic>,
    /// Per source: every lookup its linking can make (see `deps.rs`), whatever it found.
    pub deps: PerObject,
}

/// The names of the ports the containers of each Pod and pod template declare (what the
/// target-port check reads), read while linking.
#[derive(Default)]
pub struct Declared<'a> {
    /// Position of the first object of `spans`.
    first: usize,
    /// Per object from `first`: its names are `names[a..b]`; none for other kinds.
    spans: Vec<Option<(u32, u32)>>,
    names: Vec<&'a str>,
}

impl<'a> Declared<'a> {
    /// For the objects of `objects`.
    fn new(objects: Range<usize>) -> Declared<'a> {
        Declared {
            first: objects.start,
            spans: vec![None; objects.len()],
            names: Vec::new(),
        }
    }

    fn record(&mut self, i: usize, o: &'a Object, out: &mut Vec<Ref<'a>>) {
        let start = self.names.len();
        if extract_declaring(o, out, Some(&mut self.names)) {
            if let Some(span) = self.spans.get_mut(i - self.first) {
                *span = Some((to_u32(start), to_u32(self.names.len())));
            }
        }
    }

    /// Those of the objects that follow (`next` starts where these end).
    fn append(&mut self, next: Declared<'a>) {
        let shift = to_u32(self.names.len());
        self.spans.extend(
            next.spans
                .into_iter()
                .map(|s| s.map(|(a, b)| (a + shift, b + shift))),
        );
        self.names.extend(next.names);
    }

    /// Whether object `i` declares a port `name` (none for kinds without containers).
    pub fn declares(&self, i: usize, name: &str) -> Option<bool> {
        let (a, b) = self
            .spans
            .get(i.checked_sub(self.first)?)
            .copied()
            .flatten()?;
        Some(self.names[a as usize..b as usize].contains(&name))
    }
}

/// A position in `Declared::names` (fewer than 2^32 port names).
fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl Linked {
    /// These links followed by those of later sources.
    fn append(&mut self, mut next: Linked) {
        self.edges.append(&mut next.edges);
        self.dangling.append(&mut next.dangling);
        self.findings.append(&mut next.findings);
        self.deps.append(next.deps);
    }
}

/// Links the references of `sources` (ascending) against the objects `lookup` holds (the
/// target-port findings, which need the selector edges, are added by `with_refs`); with
/// `declared`, records the ports each source declares.
pub fn link_sources<'a>(
    inv: &'a Inventory,
    lookup: &Lookup<'_>,
    sources: impl Iterator<Item = usize>,
    mut declared: Option<&mut Declared<'a>>,
) -> Linked {
    let mut out = ObjectEdges {
        from: 0,
        edges: Vec::new(),
        start: 0,
        seen: FxHashSet::default(),
    };
    let mut linked = Linked::default();
    let mut buf: Vec<Ref<'_>> = Vec::new();
    // The registry's lookup allocates its key, and interning hashes: once per kind.
    let mut kinds: FxHashMap<(&str, &str), TargetKind> = FxHashMap::default();
    let mut last_owner = LastOwner::default();
    for i in sources {
        let Some(o) = inv.objects.get(i) else {
            linked.deps.end_object();
            continue;
        };
        out.next_object(i);
        buf.clear();
        match declared.as_deref_mut() {
            Some(d) => d.record(i, o, &mut buf),
            None => {
                extract_declaring(o, &mut buf, None);
            }
        }
        // Needed only for a missing target: asked then.
        let mut controlled_by: Option<bool> = None;
        for r in &mut buf {
            let kind = kinds
                .entry((r.target.group, r.target.kind))
                .or_insert_with(|| TargetKind::of(inv, r.target.group, r.target.kind));
            r.target.namespace = scoped_namespace(kind.namespaced, r.target, o.namespace());
            let t = r.target;
            linked
                .deps
                .push(deps::target_key(t.kind, t.name, t.namespace));
            match lookup.find(&r.target) {
                Some(t) => {
                    out.add(t, r.rel);
                    if let Some(port) = r.port {
                        linked
                            .findings
                            .extend(findings::port(i, o, r, port, &inv.objects[t]));
                    }
                }
                None => {
                    let target = kind.id(r.target, o);
                    let rel = EdgeName::of(r.rel);
                    linked.dangling.push((i, Dangling { rel, target }));
                    if !r.optional
                        && !*controlled_by
                            .get_or_insert_with(|| controlled(o, lookup, &mut last_owner))
                    {
                        linked.findings.extend(findings::missing(i, o, r));
                    }
                }
            }
        }
        controller_deps(o, &mut linked.deps);
        selections(inv, lookup, o, &mut out, &mut linked.deps);
        linked.deps.end_object();
    }
    linked.edges = out.edges;
    linked
}

/// Every reference result of `inv` but the target-port findings (which need the selector
/// edges): the reference graph, the findings (sorted), and the ports the objects declare
/// for those findings. Needs no other part of the graph, so a build computes it while it
/// computes the rest.
pub fn build(inv: &Inventory) -> (RefGraph, Vec<Diagnostic>, Declared<'_>) {
    let n = inv.objects.len();
    let lookup = Lookup::build(inv, 0..n);
    let chunks: Vec<Range<usize>> = (0..n)
        .step_by(LINK_CHUNK)
        .map(|a| a..n.min(a + LINK_CHUNK))
        .collect();
    let parts: Vec<(Linked, Declared<'_>)> = chunks
        .into_par_iter()
        .map(|objects| {
            let mut declared = Declared::new(objects.clone());
            let linked = link_sources(inv, &lookup, objects, Some(&mut declared));
            (linked, declared)
        })
        .collect();
    // Not needed past linking: its room goes to what follows.
    drop(lookup);
    let (mut linked, mut declared) = (Linked::default(), Declared::default());
    // Reserved once: appending part by part would regrow (and copy) them at each doubling.
    let total = |len: fn(&Linked) -> usize| parts.iter().map(|(l, _)| len(l)).sum::<usize>();
    let edges = total(|l| l.edges.len());
    linked
        .edges
        .reserve_exact(edges + crate::graph::room(edges));
    let dangling = total(|l| l.dangling.len());
    linked
        .dangling
        .reserve_exact(dangling + crate::graph::room(dangling));
    linked.findings.reserve_exact(total(|l| l.findings.len()));
    declared.spans.reserve_exact(n);
    declared
        .names
        .reserve_exact(parts.iter().map(|(_, d)| d.names.len()).sum());
    for (l, d) in parts {
        linked.append(l);
        declared.append(d);
    }
    let provided = inv.objects.par_iter().map(deps::provides).collect();
    let refs = assemble(n, linked.edges, linked.dangling, linked.deps, provided);
    let all: Vec<usize> = (0..n).collect();
    let mut found = linked.findings;
    found.extend(findings::unused(inv, &all, |i| refs.is_used(i), |_| 0..n));
    crate::diagnostic::sort(&mut found);
    (refs, found, declared)
}

/// Target-port findings of the Services among `sources`, with the ports of `declared` if
/// given (else read from the selected objects).
pub fn target_ports(
    inv: &Inventory,
    graph: &Graph,
    sources: impl Iterator<Item = usize>,
    declared: Option<&Declared<'_>>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let declares = |t: usize, o: &Object, name: &str| match declared {
        Some(d) => d.declares(t, name),
        None => findings::declares(o, name),
    };
    for i in sources {
        if let Some(o) = inv.objects.get(i).filter(|o| is_service(o)) {
            out.extend(findings::target_ports(inv, graph, i, o, &declares));
        }
    }
    out
}

/// Whether `o` is a Service (whose named target ports are checked).
pub fn is_service(o: &Object) -> bool {
    o.id.group.is_empty() && &*o.id.kind == "Service"
}

/// The reference graph of `n` objects with `edges` (grouped by source, ascending) and
/// `dangling` references (with their sources, ascending).
pub fn assemble(
    n: usize,
    edges: Vec<Edge>,
    dangling: Vec<(usize, Dangling)>,
    deps: PerObject,
    provided: Vec<[deps::DepKey; 2]>,
) -> RefGraph {
    let used_by = Adjacency::build(n, &edges, |e| e.to_ix());
    RefGraph {
        uses: Adjacency::from_grouped(n, edges, |e| e.from_ix()),
        used_by,
        dangling: Groups::from_keyed(n, dangling),
        deps,
        provided,
    }
}

/// Whether a controller of `o` in the input has a pod template: the template's references
/// are `o`'s, and a missing one is reported once, at the controller (the Deployment, not
/// its ReplicaSet and each Pod).
fn controlled<'a>(o: &'a Object, lookup: &Lookup<'_>, last: &mut LastOwner<'a>) -> bool {
    o.owner_refs().iter().any(|r| {
        if r.controller != Some(true) {
            return false;
        }
        let key = (o.namespace(), r.api_version, r.kind, r.name);
        if let Some((k, found)) = last.0 {
            if k == key {
                return found;
            }
        }
        let group = group_of(r.api_version);
        let found = pod_template(group, r.kind).is_some()
            && lookup
                .find(&Target {
                    group,
                    kind: r.kind,
                    namespace: o.namespace(),
                    name: r.name,
                })
                .is_some();
        last.0 = Some((key, found));
        found
    })
}

/// The controllers [`controlled`] can look for (whether it does depends on what resolves).
fn controller_deps(o: &Object, deps: &mut PerObject) {
    for r in o.owner_refs().iter().filter(|r| r.controller == Some(true)) {
        if pod_template(group_of(r.api_version), r.kind).is_some() {
            deps.push(deps::target_key(r.kind, r.name, o.namespace()));
        }
    }
}

/// The last controller [`controlled`] looked for, and whether it was there: the Pods of one
/// ReplicaSet mostly follow each other.
#[derive(Default)]
struct LastOwner<'a>(Option<(OwnerKey<'a>, bool)>);

/// An ownerReference from one namespace: (namespace, apiVersion, kind, name).
type OwnerKey<'a> = (&'a str, &'a str, &'a str, &'a str);

/// The namespace a reference resolves in: none for a cluster-scoped kind (Event
/// `involvedObject`s and typed backends may name one), the referrer's when a namespaced
/// kind's reference has none.
fn scoped_namespace<'a>(namespaced: Option<bool>, t: Target<'a>, own: &'a str) -> &'a str {
    match namespaced {
        Some(false) => "",
        Some(true) if t.namespace.is_empty() => own,
        _ => t.namespace,
    }
}

/// What linking needs of a target's kind, asked once per kind.
struct TargetKind {
    namespaced: Option<bool>,
    /// For dangling targets' identities: a reference may name a legacy group (`extensions`
    /// Ingress), the same resource as the current group's.
    group: Str,
    kind: Str,
}

impl TargetKind {
    fn of(inv: &Inventory, group: &str, kind: &str) -> TargetKind {
        TargetKind {
            namespaced: inv.kinds.is_namespaced(group, kind),
            group: intern(crate::kinds::canonical_group(group, kind)),
            kind: intern(kind),
        }
    }

    /// The identity of target `t` (of this kind) of a reference of `from`.
    fn id(&self, t: Target<'_>, from: &Object) -> ObjectId {
        let namespace = if t.namespace == from.namespace() {
            from.id.namespace.clone()
        } else {
            intern(t.namespace)
        };
        ObjectId {
            group: self.group.clone(),
            kind: self.kind.clone(),
            namespace,
            name: intern(t.name),
            generated: None,
        }
    }
}

/// Links made by selection rather than by one name.
fn selections(
    inv: &Inventory,
    lookup: &Lookup<'_>,
    o: &Object,
    out: &mut ObjectEdges,
    deps: &mut PerObject,
) {
    match (&*o.id.group, &*o.id.kind) {
        ("", "Service") => {
            deps.push(deps::slices_key(o.namespace(), o.name()));
            let slices = lookup.slices.get(&(o.namespace(), o.name()));
            for &s in slices.into_iter().flatten() {
                out.add(s, "endpointSlice");
            }
        }
        ("rbac.authorization.k8s.io", "ClusterRole") => {
            let selectors = o
                .get_path("aggregationRule.clusterRoleSelectors")
                .and_then(RawRef::as_array);
            if selectors.is_some() {
                deps.push(deps::AGGREGATION);
            }
            for sel in selectors.into_iter().flatten() {
                let Ok(Some(sel)) = label_selector_from_value(Some(sel)) else {
                    continue;
                };
                if sel.is_empty() {
                    continue;
                }
                for &c in &lookup.cluster_roles {
                    if sel.matches(&inv.objects[c].labels()) {
                        out.add(c, "aggregation");
                    }
                }
            }
        }
        ("apps", "StatefulSet") => {
            let replicas = o
                .get_path("spec.replicas")
                .and_then(RawRef::as_i64)
                .unwrap_or(1)
                .clamp(0, MAX_CLAIM_ORDINALS);
            for (_, t) in items(o.get_path("spec.volumeClaimTemplates")) {
                let Some(claim) = t.get("metadata").and_then(|m| str_at(m, "name")) else {
                    continue;
                };
                for ordinal in 0..replicas {
                    let name = format!("{claim}-{}-{ordinal}", o.name());
                    deps.push(deps::target_key(
                        "PersistentVolumeClaim",
                        &name,
                        o.namespace(),
                    ));
                    let target = Target {
                        group: "",
                        kind: "PersistentVolumeClaim",
                        namespace: o.namespace(),
                        name: &name,
                    };
                    if let Some(c) = lookup.find(&target) {
                        out.add(c, "volumeClaimTemplate");
                    }
                }
            }
        }
        _ => {}
    }
}
