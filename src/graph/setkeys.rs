//! Keys of matched sets: what a selector picks (Pods or pod templates of one namespace,
//! Namespaces or Nodes by their labels, or the first object with one identity), how one
//! object is tested against it, where its members are found (a build's posting lists, a
//! patch's scan of the per-object keys), and how a patch brings a set up to date after a
//! change instead of matching it again.
//!
//! A kept object did not change, so it matches a key after a change exactly when it did
//! before: a set after a change is its kept members, moved, plus the added objects that
//! match it. Only the added objects are tested, and each only against the keys it can
//! match: a key has a probe (a hash of its class, namespace and first equality requirement)
//! and an object the probes of its labels, so the test costs O(keys + added objects), not
//! O(keys × namespace objects).

use std::cell::{Cell, RefCell};

use rustc_hash::FxHashMap as HashMap;

use super::firsts::{id_hash, is_id, Firsts};
use super::keys::{self, flags, Keys};
use super::selsets::{Members, Selections};
use crate::kinds::pod_template;
use crate::model::{Inventory, Object};
use crate::selector::{LabelGet, NodeSelector, Operator, Selector};
use crate::value::{RawObject, RawRef, Str};

/// What a matched set holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Class {
    /// Pods of one namespace, by their labels.
    Pods,
    /// Workloads of one namespace, by their pod template's labels.
    Templates,
    /// Namespaces, by their labels.
    Namespaces,
    /// The Nodes a Pod can be scheduled on.
    Nodes,
    /// The first object with one identity (a Pod's Node, an HPA's target).
    Id,
}

/// How an object is tested against a key.
#[derive(Debug)]
pub(super) enum Matcher {
    Labels(Selector),
    Nodes {
        node_selector: Option<Selector>,
        affinity: Option<NodeSelector>,
    },
    /// Group, kind and name (the namespace is the key's).
    Id {
        group: String,
        kind: String,
        name: String,
    },
}

/// A matched set's identity: equal selectors of one namespace have equal keys (the
/// canonical text), and the key carries what tests an object against it.
#[derive(Debug)]
pub(super) struct SetKey {
    class: Class,
    ns: Str,
    canon: String,
    /// Of class, namespace and canonical text (to find the key again).
    hash: u64,
    /// What an object's [`probes`] include when it can be a member.
    probe: u64,
    matcher: Matcher,
}

impl PartialEq for SetKey {
    /// The matcher follows from the canonical text.
    fn eq(&self, other: &SetKey) -> bool {
        self.class == other.class && self.ns == other.ns && self.canon == other.canon
    }
}

impl Eq for SetKey {}

/// The hash of a key (see [`SetKey::hash`]).
pub(super) fn key_hash(class: Class, ns: &str, canon: &str) -> u64 {
    keys::hash(&(class, ns, canon))
}

impl SetKey {
    pub fn new(class: Class, ns: &str, canon: String, hash: u64, matcher: Matcher) -> SetKey {
        let probe = match &matcher {
            Matcher::Labels(sel) => match first_equality(sel) {
                Some((k, v)) => keys::hash(&(class, ns, k, v)),
                None => keys::hash(&(class, ns)),
            },
            Matcher::Nodes { .. } => keys::hash(&(class, ns)),
            Matcher::Id { group, kind, name } => id_probe(ns, group, kind, name),
        };
        SetKey {
            class,
            ns: Str::from(ns),
            canon,
            hash,
            probe,
            matcher,
        }
    }

    /// A key of its own, matching nothing (tests of the stores).
    #[cfg(test)]
    pub fn unique(n: usize) -> SetKey {
        let canon = n.to_string();
        let hash = key_hash(Class::Pods, "", &canon);
        SetKey::new(
            Class::Pods,
            "",
            canon,
            hash,
            Matcher::Labels(Selector::default()),
        )
    }

    pub fn ns(&self) -> &str {
        &self.ns
    }

    pub fn class(&self) -> Class {
        self.class
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn probe(&self) -> u64 {
        self.probe
    }

    /// Whether this is the key of `class`, `ns` and `canon`.
    pub fn is(&self, class: Class, ns: &str, canon: &str) -> bool {
        self.class == class && *self.ns == *ns && self.canon == canon
    }

    /// Whether object `i` is a member (for an identity: one of the objects the first of
    /// which is).
    pub fn matches(&self, inv: &Inventory, i: usize) -> bool {
        let Some(o) = inv.objects.get(i) else {
            return false;
        };
        match (&self.matcher, candidate(o)) {
            (Matcher::Labels(sel), Candidate::Pod) => {
                self.class == Class::Pods && o.namespace() == &*self.ns && sel.matches(&o.labels())
            }
            (Matcher::Labels(sel), Candidate::Template(labels)) => {
                self.class == Class::Templates
                    && o.namespace() == &*self.ns
                    && sel.matches(&JsonLabels(labels))
            }
            (Matcher::Labels(sel), Candidate::Namespace) => {
                self.class == Class::Namespaces && sel.matches(&NamespaceLabels(o))
            }
            (
                Matcher::Nodes {
                    node_selector,
                    affinity,
                },
                Candidate::Node,
            ) => {
                node_selector
                    .as_ref()
                    .is_none_or(|s| s.matches(&o.labels()))
                    && affinity
                        .as_ref()
                        .is_none_or(|a| a.matches(o.name(), &o.labels()))
            }
            (Matcher::Id { group, kind, name }, _) => {
                *o.id.group == **group
                    && *o.id.kind == **kind
                    && *o.id.namespace == *self.ns
                    && *o.id.name == **name
            }
            _ => false,
        }
    }
}

/// The probe of an identity.
fn id_probe(ns: &str, group: &str, kind: &str, name: &str) -> u64 {
    keys::hash(&(Class::Id, ns, group, kind, name))
}

/// The first requirement of `sel` an object can only meet by having one label value:
/// candidates are looked up by it.
pub(super) fn first_equality(sel: &Selector) -> Option<(&str, &str)> {
    sel.requirements().iter().find_map(|r| match r.operator {
        Operator::Equals | Operator::DoubleEquals | Operator::In if r.values.len() == 1 => {
            Some((r.key.as_str(), r.values[0].as_str()))
        }
        _ => None,
    })
}

/// Every probe of the keys `o` can be a member of.
fn probes(o: &Object, mut add: impl FnMut(u64)) {
    let id = &o.id;
    add(id_probe(&id.namespace, &id.group, &id.kind, &id.name));
    let ns = o.namespace();
    let mut labels = |class: Class, ns: &str, pairs: &mut dyn Iterator<Item = (&str, &str)>| {
        add(keys::hash(&(class, ns)));
        for (k, v) in pairs {
            add(keys::hash(&(class, ns, k, v)));
        }
    };
    match candidate(o) {
        Candidate::Pod => labels(Class::Pods, ns, &mut o.labels().into_iter()),
        Candidate::Template(m) => labels(
            Class::Templates,
            ns,
            &mut m
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k, v.as_str()?))),
        ),
        Candidate::Namespace => {
            let named = (!o.labels().contains_key(NAME_LABEL)).then_some((NAME_LABEL, o.name()));
            labels(
                Class::Namespaces,
                "",
                &mut o.labels().into_iter().chain(named),
            )
        }
        Candidate::Node => add(keys::hash(&(Class::Nodes, ""))),
        Candidate::None => {}
    }
}

/// Whether `a` and `b` are members of the same keys: one identity, and the same labels
/// where a key reads them (a Pod's, Namespace's or Node's own, a workload's pod template's).
/// Equal labels in another order count as different (a patch then only does more).
pub(super) fn same_membership(a: &Object, b: &Object) -> bool {
    if a.id != b.id || a.namespaced != b.namespaced {
        return false;
    }
    match (candidate(a), candidate(b)) {
        (Candidate::Pod, _) | (Candidate::Namespace, _) | (Candidate::Node, _) => {
            a.labels().into_iter().eq(b.labels())
        }
        (Candidate::Template(x), Candidate::Template(y)) => {
            template_labels(x).into_iter().eq(template_labels(y))
        }
        (Candidate::None, Candidate::None) => true,
        _ => false,
    }
}

/// A pod template's labels as a selector reads them (a value that is no string: none).
fn template_labels(m: Option<RawObject<'_>>) -> Vec<(&str, Option<&str>)> {
    m.into_iter()
        .flatten()
        .map(|(k, v)| (k, v.as_str()))
        .collect()
}

/// The label the API server sets on every Namespace (since 1.21).
const NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// What a selector can pick an object as.
#[derive(Clone, Copy)]
enum Candidate<'a> {
    Pod,
    /// A workload, with its pod template's labels.
    Template(Option<RawObject<'a>>),
    Namespace,
    Node,
    None,
}

fn candidate(o: &Object) -> Candidate<'_> {
    match (&*o.id.group, &*o.id.kind) {
        ("", "Pod") => Candidate::Pod,
        ("", "Namespace") => Candidate::Namespace,
        ("", "Node") => Candidate::Node,
        (group, kind) => match pod_template(group, kind) {
            Some(path) => Candidate::Template(
                o.get_path(path)
                    .and_then(|t| t.get("metadata"))
                    .and_then(|m| m.get("labels"))
                    .and_then(RawRef::as_object),
            ),
            None => Candidate::None,
        },
    }
}

/// A label set read from a JSON object (`spec.template.metadata.labels`).
pub(super) struct JsonLabels<'a>(pub Option<RawObject<'a>>);

impl LabelGet for JsonLabels<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        self.0?.get(key).and_then(RawRef::as_str)
    }
}

/// A Namespace's labels plus the `kubernetes.io/metadata.name` label the API server sets
/// on every Namespace.
struct NamespaceLabels<'a>(&'a Object);

impl LabelGet for NamespaceLabels<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        match self.0.labels().get(key) {
            Some(v) => Some(v),
            None if key == NAME_LABEL => Some(self.0.name()),
            None => None,
        }
    }
}

/// Where the members of a key not matched yet are found.
pub(super) trait Candidates {
    /// The members of `key`, ascending (for an identity: the first one only).
    fn matching(&self, inv: &Inventory, key: &SetKey) -> Vec<usize>;
}

/// What selectors can pick, by namespace: Pods by their labels, workloads by their pod
/// template labels, Namespaces and Nodes, and every object by identity (a build's pool).
#[derive(Default)]
pub(super) struct Pool<'a> {
    pods: HashMap<&'a str, Bucket<'a>>,
    templates: HashMap<&'a str, Bucket<'a>>,
    namespaces: Vec<usize>,
    nodes: Vec<usize>,
    by_id: Firsts,
}

/// Candidates of one namespace and, per label, the candidates carrying it.
#[derive(Default)]
struct Bucket<'a> {
    all: Vec<(u32, Labels<'a>)>,
    /// (32-bit hash of a label's key and value, position in `all`), sorted: a label's
    /// posting list is a run (one flat array instead of a map of vectors: a fifth of the
    /// memory). Labels sharing a hash share a run; the whole selector tells them apart.
    postings: Vec<(u32, u32)>,
}

/// Where a candidate's labels live.
#[derive(Clone, Copy)]
enum Labels<'a> {
    Object(&'a Object),
    Json(Option<RawObject<'a>>),
}

impl LabelGet for Labels<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        match self {
            Labels::Object(o) => o.labels().get(key),
            Labels::Json(m) => m.and_then(|m| m.get(key)).and_then(RawRef::as_str),
        }
    }
}

/// The hash a label is posted under.
fn label_hash(key: &str, value: &str) -> u32 {
    (keys::hash(&(key, value)) >> 32) as u32
}

impl<'a> Bucket<'a> {
    fn add(&mut self, i: usize, labels: Labels<'a>) {
        let pos = u32::try_from(self.all.len()).unwrap_or(u32::MAX);
        let mut post = |k: &str, v: &str| self.postings.push((label_hash(k, v), pos));
        match labels {
            Labels::Object(o) => {
                for (k, v) in o.labels() {
                    post(k, v);
                }
            }
            Labels::Json(Some(m)) => {
                for (k, v) in m {
                    if let Some(v) = v.as_str() {
                        post(k, v);
                    }
                }
            }
            Labels::Json(None) => {}
        }
        self.all
            .push((u32::try_from(i).unwrap_or(u32::MAX), labels));
    }

    /// Sorts the postings into runs, and gives back the room the pushes left over.
    fn finish(&mut self) {
        self.postings.sort_unstable();
        self.postings.shrink_to_fit();
        self.all.shrink_to_fit();
    }

    /// Candidates matching `sel`: through the posting list of its first equality
    /// requirement when it has one (a label sharing its hash fails the whole selector, and
    /// a candidate with two labels sharing it is taken once), else by scanning the
    /// namespace.
    fn select(&self, sel: &Selector) -> Vec<usize> {
        let check = |&(i, labels): &(u32, Labels<'a>)| sel.matches(&labels).then_some(i as usize);
        match first_equality(sel) {
            Some((k, v)) => {
                let h = label_hash(k, v);
                let from = self.postings.partition_point(|&(p, _)| p < h);
                let mut out: Vec<usize> = self.postings[from..]
                    .iter()
                    .take_while(|&&(p, _)| p == h)
                    .filter_map(|&(_, pos)| check(&self.all[pos as usize]))
                    .collect();
                out.dedup();
                out
            }
            None => self.all.iter().filter_map(check).collect(),
        }
    }
}

impl<'a> Pool<'a> {
    pub fn build(inv: &'a Inventory) -> Pool<'a> {
        let mut pool = Pool {
            by_id: Firsts::with_capacity(inv.objects.len()),
            ..Pool::default()
        };
        let objects = &inv.objects;
        for (i, o) in objects.iter().enumerate() {
            let id = &o.id;
            let (g, k, ns, name) = (&*id.group, &*id.kind, &*id.namespace, &*id.name);
            pool.by_id.insert(id_hash(g, k, ns, name), i, |j| {
                is_id(&objects[j].id, g, k, ns, name)
            });
            let bucket = |map: &mut HashMap<&'a str, Bucket<'a>>, labels| {
                map.entry(o.namespace()).or_default().add(i, labels)
            };
            match candidate(o) {
                Candidate::Pod => bucket(&mut pool.pods, Labels::Object(o)),
                Candidate::Template(m) => bucket(&mut pool.templates, Labels::Json(m)),
                Candidate::Namespace => pool.namespaces.push(i),
                Candidate::Node => pool.nodes.push(i),
                Candidate::None => {}
            }
        }
        for b in pool.pods.values_mut().chain(pool.templates.values_mut()) {
            b.finish();
        }
        pool
    }

    /// How many Nodes the inventory holds.
    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }
}

impl Candidates for Pool<'_> {
    fn matching(&self, inv: &Inventory, key: &SetKey) -> Vec<usize> {
        let among = |list: &[usize]| {
            list.iter()
                .copied()
                .filter(|&i| key.matches(inv, i))
                .collect()
        };
        match (&key.matcher, key.class) {
            (Matcher::Labels(sel), Class::Pods) => self
                .pods
                .get(&*key.ns)
                .map(|b| b.select(sel))
                .unwrap_or_default(),
            (Matcher::Labels(sel), Class::Templates) => self
                .templates
                .get(&*key.ns)
                .map(|b| b.select(sel))
                .unwrap_or_default(),
            (_, Class::Namespaces) => among(&self.namespaces),
            (_, Class::Nodes) => among(&self.nodes),
            (Matcher::Id { group, kind, name }, _) => {
                let (g, k, ns, n) = (group.as_str(), kind.as_str(), &*key.ns, name.as_str());
                self.by_id
                    .get(id_hash(g, k, ns, n), |i| {
                        is_id(&inv.objects[i].id, g, k, ns, n)
                    })
                    .map(|t| vec![t])
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        }
    }
}

/// The members of keys a patch has not matched before, found by scanning the per-object
/// keys of the new inventory (a patch keeps no posting lists; a change brings few new
/// keys). Each kind of scan is done once per patch.
pub(super) struct Scan<'a> {
    keys: &'a Keys,
    found: RefCell<HashMap<Want, Vec<usize>>>,
    looked_at: Cell<usize>,
}

/// The objects one scan collects.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Want {
    /// Pods and workloads of the namespace with this key (or cluster-scoped ones).
    Candidates(keys::KeyHash),
    Namespaces,
    Nodes,
    /// Objects with this kind and name key.
    Named(keys::KeyHash),
}

impl<'a> Scan<'a> {
    pub fn new(keys: &'a Keys) -> Scan<'a> {
        Scan {
            keys,
            found: RefCell::default(),
            looked_at: Cell::new(0),
        }
    }

    /// How many objects the scans collected.
    pub fn looked_at(&self) -> usize {
        self.looked_at.get()
    }

    fn scan(&self, want: Want, inv: &Inventory, key: &SetKey) -> Vec<usize> {
        let mut found = self.found.borrow_mut();
        let list = found.entry(want).or_insert_with(|| {
            // Each scan reads only the fields it looks at.
            let k = &self.keys.objects;
            let with = |bits: u8| -> Vec<usize> {
                (k.flags.iter().enumerate())
                    .filter(|(_, &f)| f & bits != 0)
                    .map(|(i, _)| i)
                    .collect()
            };
            let list: Vec<usize> = match want {
                Want::Candidates(ns) => (k.flags.iter().zip(&k.ns).enumerate())
                    .filter(|(_, (&f, &at))| f & flags::CANDIDATE != 0 && (at == ns || at == 0))
                    .map(|(i, _)| i)
                    .collect(),
                Want::Namespaces => with(flags::NAMESPACE),
                Want::Nodes => with(flags::NODE),
                Want::Named(name) => (k.name.iter().enumerate())
                    .filter(|(_, &n)| n == name)
                    .map(|(i, _)| i)
                    .collect(),
            };
            self.looked_at.set(self.looked_at.get() + list.len());
            list
        });
        let mut members = list.iter().copied().filter(|&i| key.matches(inv, i));
        match key.class {
            Class::Id => members.next().into_iter().collect(),
            _ => members.collect(),
        }
    }
}

impl Candidates for Scan<'_> {
    fn matching(&self, inv: &Inventory, key: &SetKey) -> Vec<usize> {
        let want = match (&key.matcher, key.class) {
            (Matcher::Id { kind, name, .. }, _) => {
                Want::Named(keys::name_key(kind.as_str(), name.as_str()))
            }
            (_, Class::Pods | Class::Templates) => Want::Candidates(keys::ns_key(&key.ns)),
            (_, Class::Namespaces) => Want::Namespaces,
            (_, Class::Nodes) => Want::Nodes,
            (_, Class::Id) => return Vec::new(),
        };
        self.scan(want, inv, key)
    }
}

/// What [`patch_sets`] changed, by key.
#[derive(Debug, Default)]
pub(super) struct SetPatch {
    /// The keys whose set went from empty to not or back, ascending.
    pub flipped: Vec<u32>,
    /// The keys given another set (a new one: sets are shared between keys), with the set
    /// they had, ascending by key.
    pub repointed: Vec<(u32, u32)>,
}

impl SetPatch {
    /// Whether key `k`'s set went from empty to not or back.
    pub fn flipped(&self, k: u32) -> bool {
        self.flipped.binary_search(&k).is_ok()
    }

    /// The set key `k` had before the patch, now `now`.
    pub fn set_before(&self, k: u32, now: u32) -> u32 {
        match self.repointed.binary_search_by_key(&k, |r| r.0) {
            Ok(at) => self.repointed[at].1,
            Err(_) => now,
        }
    }
}

/// Brings the keyed sets of `sel` (old positions) up to date after a change: members moved
/// by `shift` (replaced ones left out), the `added` objects (new positions, ascending) each
/// key matches put in, and the first object of an identity whose old one was replaced
/// looked for again among `keys` (of the new inventory). A key whose set changes gets a new
/// set (sets are shared between keys). `losing`: the only sets that can lose a member when
/// known (no position moves: the sets holding a replaced object), else every set is moved.
/// One pass over the keys, reading only what each holds inline (its probe and set id).
pub(super) fn patch_sets(
    inv: &Inventory,
    keys: &Keys,
    sel: &mut Selections,
    (shift, losing): (impl Fn(usize) -> Option<usize>, Option<&[u32]>),
    added: &[usize],
) -> SetPatch {
    let lost = match losing {
        Some(ids) => sel.move_some_sets(ids, shift),
        None => sel.move_sets(shift),
    };
    let mut by_probe: HashMap<u64, Vec<usize>> = HashMap::default();
    for &i in added {
        probes(&inv.objects[i], |p| by_probe.entry(p).or_default().push(i));
    }
    let mut out = SetPatch::default();
    // Identities whose first object was replaced, by kind and name key.
    let mut again: HashMap<keys::KeyHash, Vec<usize>> = HashMap::default();
    let Selections {
        keys: keyed, sets, ..
    } = &mut *sel;
    for (k, entry) in keyed.iter_mut().enumerate() {
        let set = entry.set as usize;
        // A set that lost a member had one before: whether it was empty is read only for
        // the keys whose set changes.
        let lost_here = lost.get(set).copied().unwrap_or(false);
        // Only what `entry` holds is read for every key (not `entry.key`: a cache miss).
        let lost_first = lost_here && entry.key.class == Class::Id;
        let key = &entry.key;
        let gains: Vec<usize> = match by_probe.get(&entry.probe) {
            Some(added) if !lost_first => {
                let mut gains: Vec<usize> = added
                    .iter()
                    .copied()
                    .filter(|&i| key.matches(inv, i))
                    .collect();
                gains.dedup();
                gains
            }
            _ => Vec::new(),
        };
        if gains.is_empty() {
            match (lost_first, &key.matcher) {
                (true, Matcher::Id { kind, name, .. }) => {
                    again.entry(keys::name_key(kind, name)).or_default().push(k);
                }
                _ if lost_here && sets[set].is_empty() => out.flipped.push(k as u32),
                _ => {}
            }
            continue;
        }
        let was_empty = !lost_here && sets[set].is_empty();
        let members = if key.class == Class::Id {
            let first = sets[set].first().map(|&t| t as usize);
            let now = first.into_iter().chain(gains).min();
            now.map(|t| t as u32).into_iter().collect()
        } else {
            merge(&sets[set], &gains)
        };
        if was_empty {
            out.flipped.push(k as u32);
        }
        sets.push(members);
        out.repointed.push((k as u32, entry.set));
        entry.set = (sets.len() - 1) as u32;
    }
    if !again.is_empty() {
        let mut first: HashMap<usize, usize> = HashMap::default();
        for (i, name) in keys.objects.name.iter().enumerate() {
            for &key in again.get(name).into_iter().flatten() {
                if !first.contains_key(&key) && sel.keys[key].key.matches(inv, i) {
                    first.insert(key, i);
                }
            }
        }
        for key in again.into_values().flatten() {
            let members: Members = first.get(&key).map(|&t| t as u32).into_iter().collect();
            // It had its first object before (the one replaced).
            if members.is_empty() {
                out.flipped.push(key as u32);
            }
            out.repointed.push((key as u32, sel.keys[key].set));
            sel.keys[key].set = sel.add_set(members);
        }
        out.flipped.sort_unstable();
        out.repointed.sort_unstable();
    }
    out
}

/// `set` and `more` (both ascending, disjoint) as one ascending list.
fn merge(set: &[u32], more: &[usize]) -> Members {
    let mut out = Members::with_capacity(set.len() + more.len());
    out.extend_from_slice(set);
    out.extend(more.iter().map(|&i| i as u32));
    out.sort_unstable();
    out
}

/// A label selector in a form where equal selectors are equal: requirements sorted, values
/// sorted and de-duplicated. Length-prefixed parts, so no two selectors share one.
pub(super) fn labels_canon(sel: &Selector) -> String {
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
    s
}

/// Node scheduling constraints as their manifest text.
pub(super) fn nodes_canon(
    node_selector: Option<RawRef<'_>>,
    affinity: Option<RawRef<'_>>,
) -> String {
    let mut s = String::new();
    for v in [node_selector, affinity] {
        part(&mut s, &v.map(|v| v.to_string()).unwrap_or_default());
    }
    s
}

/// An identity's group, kind and name (the namespace is the key's).
pub(super) fn id_canon(group: &str, kind: &str, name: &str) -> String {
    let mut s = String::new();
    for p in [group, kind, name] {
        part(&mut s, p);
    }
    s
}

/// Appends `text` to `s` with its length before it.
fn part(s: &mut String, text: &str) {
    s.push_str(&text.len().to_string());
    s.push(':');
    s.push_str(text);
}
