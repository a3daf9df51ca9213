//! Per-object hashes of what links objects (namespace, kind + name, uid, ownerReferences,
//! app instance), in flat arrays by position: a patch finds the objects a change reaches by
//! scanning these instead of every object's fields scattered over the heap.
//!
//! A hash stands for a set of values; two values sharing one only make a patch recompute
//! more than it needs, never less. `0` means "none" (cluster-scoped, no uid, no instance).

use std::hash::{Hash, Hasher};
use std::ops::Range;

use rustc_hash::FxHasher;

use super::{apps, lifecycle};
use crate::model::Object;

/// Hashes of one or more values, never 0.
pub(super) fn hash<T: Hash + ?Sized>(v: &T) -> u64 {
    let mut h = FxHasher::default();
    v.hash(&mut h);
    h.finish() | 1
}

/// A per-object key ([`Key`], [`RefKey`]): 32 bits of a [`hash`] (its high half, where
/// the hasher mixes best), never 0. A patch scans every object's keys (a field at a time,
/// [`KeyColumns`]): at 32 bits that is half the memory to read. Two values sharing a key
/// only make a patch recompute more (one object in ≈ 4 billion per changed value).
pub(super) type KeyHash = u32;

/// The [`KeyHash`] of one or more values.
pub(super) fn key_hash<T: Hash + ?Sized>(v: &T) -> KeyHash {
    (hash(v) >> 32) as u32 | 1
}

/// The key of an object's namespace: `0` for a cluster-scoped object, even one whose
/// manifest sets a namespace (which the loader keeps, with a warning).
pub(super) fn scope_key(o: &Object) -> KeyHash {
    if o.namespaced {
        ns_key(&o.id.namespace)
    } else {
        0
    }
}

/// The key of a namespace (`0` for none).
pub(super) fn ns_key(ns: &str) -> KeyHash {
    if ns.is_empty() {
        0
    } else {
        key_hash(ns)
    }
}

/// The key of a (kind, name) pair in any namespace.
pub(super) fn name_key(kind: &str, name: &str) -> KeyHash {
    key_hash(&(kind, name))
}

/// The key of a (kind, name) pair in one namespace (`""`: cluster-scoped).
pub(super) fn ns_name_key(kind: &str, name: &str, ns: &str) -> KeyHash {
    key_hash(&(kind, name, ns))
}

/// Where an object can be found by an ownerReference: its namespace, or `""`.
fn scope_ns(o: &Object) -> &str {
    if o.namespaced {
        &o.id.namespace
    } else {
        ""
    }
}

/// The key of a uid (`0` for none).
pub(super) fn uid_key(uid: &str) -> KeyHash {
    if uid.is_empty() {
        0
    } else {
        key_hash(uid)
    }
}

/// The key of an object's app instance (`0` when it has none).
pub(super) fn instance_key(o: &Object) -> KeyHash {
    apps::instance_of(o).map_or(0, |k| key_hash(&k))
}

/// One object's keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Key {
    pub ns: KeyHash,
    /// (kind, name) in any namespace, and in the object's own (see [`ns_name_key`]).
    pub name: KeyHash,
    pub ns_name: KeyHash,
    pub uid: KeyHash,
    pub instance: KeyHash,
    /// For a Terminating Namespace object: the key of the namespace it is (its finding lists
    /// what is still inside); else `0`.
    pub terminating_ns: KeyHash,
    /// For a Pod: the key of the Node its `spec.nodeName` names (`0`: none).
    pub node: KeyHash,
    /// What selectors the object has and can be picked by ([`flags`]).
    pub flags: u8,
}

/// Bits of [`Key::flags`]: which selector results an object takes part in (see
/// `selectors.rs`). A set bit only makes a patch recompute more.
pub(super) mod flags {
    /// A Pod or a kind with a pod template: selectors of its namespace can pick it.
    pub const CANDIDATE: u8 = 1;
    /// Selects Pods and pod templates of its namespace (Service, workloads, PDB,
    /// NetworkPolicy).
    pub const SELECTS_PODS: u8 = 2;
    /// Names an object of its namespace (HorizontalPodAutoscaler `scaleTargetRef`).
    pub const SELECTS_BY_NAME: u8 = 4;
    /// Selects Namespaces (NetworkPolicy `namespaceSelector`).
    pub const SELECTS_NAMESPACES: u8 = 8;
    /// A Pod that may be scheduled by node selector or affinity (its results depend on
    /// every Node).
    pub const SELECTS_NODES: u8 = 16;
    /// A Namespace object.
    pub const NAMESPACE: u8 = 32;
    /// A Node object.
    pub const NODE: u8 = 64;
}

const NODE_AFFINITY: &str =
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";

/// The [`Key::flags`] of `o`.
fn flags_of(o: &Object) -> u8 {
    use flags::*;
    let mut f = 0;
    match (&*o.id.group, &*o.id.kind) {
        ("", "Pod") => {
            f |= CANDIDATE;
            let scheduled = o.get_str("spec.nodeName").is_some_and(|n| !n.is_empty());
            let constrained =
                o.get_path("spec.nodeSelector").is_some() || o.get_path(NODE_AFFINITY).is_some();
            if !scheduled && constrained {
                f |= SELECTS_NODES;
            }
        }
        ("", "Namespace") => f |= NAMESPACE,
        ("", "Node") => f |= NODE,
        ("", "Service" | "ReplicationController") => f |= SELECTS_PODS,
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet") | ("batch", "Job") => {
            f |= SELECTS_PODS
        }
        ("policy", "PodDisruptionBudget") => f |= SELECTS_PODS,
        ("networking.k8s.io", "NetworkPolicy") => f |= SELECTS_PODS | SELECTS_NAMESPACES,
        ("autoscaling", "HorizontalPodAutoscaler") => f |= SELECTS_BY_NAME,
        _ => {}
    }
    if crate::kinds::pod_template(&o.id.group, &o.id.kind).is_some() {
        f |= CANDIDATE;
    }
    f
}

/// The key of a Node name (`0` for none).
pub(super) fn node_key(name: &str) -> KeyHash {
    if name.is_empty() {
        0
    } else {
        key_hash(&("Node", name))
    }
}

impl Key {
    pub fn of(o: &Object) -> Key {
        Key {
            ns: scope_key(o),
            name: name_key(&o.id.kind, &o.id.name),
            ns_name: ns_name_key(&o.id.kind, &o.id.name, scope_ns(o)),
            uid: o.uid().map_or(0, uid_key),
            instance: instance_key(o),
            terminating_ns: if lifecycle::is_namespace(o) && lifecycle::namespace_terminating(o) {
                ns_key(&o.id.name)
            } else {
                0
            },
            node: if &*o.id.kind == "Pod" && o.id.group.is_empty() {
                o.get_str("spec.nodeName").map_or(0, node_key)
            } else {
                0
            },
            flags: flags_of(o),
        }
    }
}

/// One ownerReference's keys: what it names in the dependent's namespace and in the
/// cluster scope, in any namespace (the "exists elsewhere" hint of an unresolved
/// reference), and by uid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RefKey {
    pub here: KeyHash,
    pub cluster: KeyHash,
    pub anywhere: KeyHash,
    pub uid: KeyHash,
}

/// The keys of `o`'s ownerReferences.
pub(super) fn ref_keys(o: &Object) -> impl Iterator<Item = RefKey> + '_ {
    let ns = scope_ns(o);
    o.owner_refs().iter().map(move |r| RefKey {
        here: ns_name_key(r.kind, r.name, ns),
        cluster: ns_name_key(r.kind, r.name, ""),
        anywhere: name_key(r.kind, r.name),
        uid: uid_key(r.uid),
    })
}

/// Every object's [`Key`], one array per field: a patch's passes over every object read
/// one or two fields each, and reading a field out of whole keys reads all of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct KeyColumns {
    pub ns: Vec<KeyHash>,
    pub name: Vec<KeyHash>,
    pub ns_name: Vec<KeyHash>,
    pub uid: Vec<KeyHash>,
    pub instance: Vec<KeyHash>,
    pub terminating_ns: Vec<KeyHash>,
    pub node: Vec<KeyHash>,
    pub flags: Vec<u8>,
}

impl KeyColumns {
    fn with_capacity(n: usize) -> KeyColumns {
        KeyColumns {
            ns: Vec::with_capacity(n),
            name: Vec::with_capacity(n),
            ns_name: Vec::with_capacity(n),
            uid: Vec::with_capacity(n),
            instance: Vec::with_capacity(n),
            terminating_ns: Vec::with_capacity(n),
            node: Vec::with_capacity(n),
            flags: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.ns.len()
    }

    fn push(&mut self, k: Key) {
        self.ns.push(k.ns);
        self.name.push(k.name);
        self.ns_name.push(k.ns_name);
        self.uid.push(k.uid);
        self.instance.push(k.instance);
        self.terminating_ns.push(k.terminating_ns);
        self.node.push(k.node);
        self.flags.push(k.flags);
    }

    /// The keys at `gone` replaced by `new`'s.
    fn splice(&mut self, gone: Range<usize>, new: KeyColumns) {
        self.ns.splice(gone.clone(), new.ns);
        self.name.splice(gone.clone(), new.name);
        self.ns_name.splice(gone.clone(), new.ns_name);
        self.uid.splice(gone.clone(), new.uid);
        self.instance.splice(gone.clone(), new.instance);
        self.terminating_ns.splice(gone.clone(), new.terminating_ns);
        self.node.splice(gone.clone(), new.node);
        self.flags.splice(gone, new.flags);
    }
}

/// Keys of every object, and of every ownerReference by object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Keys {
    pub objects: KeyColumns,
    /// `refs[ref_offsets[i]..ref_offsets[i + 1]]` are object `i`'s ownerReferences.
    ref_offsets: Vec<u32>,
    refs: Vec<RefKey>,
    /// The positions of the objects with a [`Key::terminating_ns`], ascending (a few: a
    /// patch reads these instead of every key).
    terminating: Vec<u32>,
    /// Per object: some ownerReference of it did not resolve in its own scope (set from the
    /// findings when the graph is assembled).
    pub unresolved: Vec<bool>,
}

impl Keys {
    pub fn build(objects: &[Object]) -> Keys {
        Keys::build_room(objects, |_| 0)
    }

    /// [`Keys::build`] with room for objects an edit adds (see [`super::room`]): what a
    /// graph build keeps.
    pub fn build_with_room(objects: &[Object]) -> Keys {
        Keys::build_room(objects, super::room)
    }

    fn build_room(objects: &[Object], room: fn(usize) -> usize) -> Keys {
        let refs = objects.iter().map(|o| o.owner_refs().len()).sum();
        let n = objects.len();
        let mut keys = Keys {
            objects: KeyColumns::with_capacity(n + room(n)),
            ref_offsets: Vec::with_capacity(n + 1 + room(n)),
            refs: Vec::with_capacity(refs + room(refs)),
            terminating: Vec::new(),
            unresolved: Vec::new(),
        };
        keys.ref_offsets.push(0);
        keys.extend(objects);
        keys
    }

    fn extend(&mut self, objects: &[Object]) {
        for o in objects {
            let key = Key::of(o);
            if key.terminating_ns != 0 {
                self.terminating
                    .push(u32::try_from(self.objects.len()).unwrap_or(u32::MAX));
            }
            self.objects.push(key);
            self.refs.extend(ref_keys(o));
            self.ref_offsets
                .push(u32::try_from(self.refs.len()).unwrap_or(u32::MAX));
        }
    }

    /// The objects with a [`Key::terminating_ns`] (Terminating Namespaces), ascending.
    pub fn terminating(&self) -> impl Iterator<Item = usize> + '_ {
        self.terminating.iter().map(|&i| i as usize)
    }

    /// Every ownerReference's keys, in object order.
    pub fn all_refs(&self) -> &[RefKey] {
        &self.refs
    }

    /// The object whose ownerReferences hold reference `j` of [`Keys::all_refs`].
    pub fn object_of_ref(&self, j: usize) -> usize {
        super::run_holding(&self.ref_offsets, j)
    }

    /// The ownerReference keys of object `i`.
    pub fn refs(&self, i: usize) -> &[RefKey] {
        match (self.ref_offsets.get(i), self.ref_offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.refs[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Replaces old runs `(old range, new range)` (ascending, not overlapping) by the keys
    /// of the objects now at the new ranges of `objects`, in place: only the keys after a
    /// run move (a patch no longer copies 100k keys into fresh memory), and ownerReference
    /// offsets after a run shift only when the run's reference count changed.
    /// `unresolved` is left as it was (the caller maps it by position).
    pub fn splice(&mut self, runs: &[(Range<usize>, Range<usize>)], objects: &[Object]) {
        // Last run first: the old positions of the runs before it stay valid.
        for (gone, added) in runs.iter().rev() {
            let (Some(&a), Some(&b)) = (
                self.ref_offsets.get(gone.start),
                self.ref_offsets.get(gone.end),
            ) else {
                continue;
            };
            let run = Keys::build(&objects[added.clone()]);
            let added_refs = u32::try_from(run.refs.len()).unwrap_or(u32::MAX);
            let removed_refs = b.saturating_sub(a);
            // The run's offsets (after its leading 0) count from `a`; they replace the old
            // run's, which end its objects at gone.start + 1 ..= gone.end.
            let offsets = run.ref_offsets[1..].iter().map(|&o| a.saturating_add(o));
            self.ref_offsets
                .splice(gone.start + 1..gone.end + 1, offsets);
            self.objects.splice(gone.clone(), run.objects);
            self.refs.splice(a as usize..b as usize, run.refs);
            let grew = added.len() as i64 - gone.len() as i64;
            let (lo, hi) = (
                self.terminating
                    .partition_point(|&t| (t as usize) < gone.start),
                self.terminating
                    .partition_point(|&t| (t as usize) < gone.end),
            );
            let fresh = run.terminating.iter().map(|&t| t + gone.start as u32);
            self.terminating.splice(lo..hi, fresh);
            if grew != 0 {
                let after = lo + run.terminating.len();
                for t in &mut self.terminating[after..] {
                    *t = (i64::from(*t) + grew) as u32;
                }
            }
            if added_refs != removed_refs {
                let tail = gone.start + 1 + added.len();
                for o in &mut self.ref_offsets[tail..] {
                    *o = *o - removed_refs + added_refs;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::model::load::parse_text;

    /// Pods with 0, 2 and 1 ownerReferences, a Terminating Namespace, a Pod with 3.
    fn before() -> Vec<Object> {
        let owners = |names: &[&str]| -> String {
            let refs: Vec<String> = names
                .iter()
                .map(|n| {
                    format!("{{apiVersion: apps/v1, kind: ReplicaSet, name: {n}, uid: u-{n}}}")
                })
                .collect();
            format!("[{}]", refs.join(", "))
        };
        let docs: Vec<String> = [
            ("a", vec![]),
            ("b", vec!["r1", "r2"]),
            ("c", vec!["r3"]),
            ("d", vec![]),
            ("e", vec!["r4", "r5", "r6"]),
        ]
        .iter()
        .map(|(name, refs)| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: ns, uid: {name}, ownerReferences: {}}}\n",
                owners(refs)
            )
        })
        .collect();
        let mut docs = docs;
        docs[3] =
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: d}\nstatus: {phase: Terminating}\n"
                .into();
        parse_text(&Arc::from(Path::new("b.yaml")), &docs.join("---\n")).objects
    }

    /// Objects with 2, 0 and 1 ownerReferences (the second a Terminating Namespace), to put
    /// in.
    fn added() -> Vec<Object> {
        let text = "\
apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: ns, ownerReferences: [{apiVersion: v1, kind: Node, name: n1, uid: n1}, {apiVersion: v1, kind: Node, name: n2, uid: n2}]}\n---
apiVersion: v1\nkind: Namespace\nmetadata: {name: gone}\nstatus: {phase: Terminating}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: z, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: r9, uid: u9}]}\n";
        parse_text(&Arc::from(Path::new("a.yaml")), text).objects
    }

    /// Every run replaced by every prefix of the new objects (shorter, equal, longer, with
    /// more, fewer or as many ownerReferences), alone and together with a second run: the
    /// keys spliced in place equal the keys built from scratch.
    #[test]
    fn splice_in_place_equals_a_build() {
        let (before, new) = (before(), added());
        assert_eq!(before.len(), 5);
        assert_eq!(Keys::build(&before).terminating().collect::<Vec<_>>(), [3]);
        assert_eq!(Keys::build(&new).terminating().collect::<Vec<_>>(), [1]);
        for at in 0..=before.len() {
            for end in at..=before.len() {
                for n in 0..=new.len() {
                    // One run, then the same run plus a second one replacing the last object
                    // (when it lies after the first run) by `new[..1]`.
                    let last = before.len() - 1;
                    let mut cases = vec![vec![(at..end, n)]];
                    if end <= last && n > 0 {
                        cases.push(vec![(at..end, n), (last..last + 1, 1)]);
                    }
                    for runs in cases {
                        let mut after = Vec::new();
                        let mut spans = Vec::new();
                        let mut old = 0;
                        for (gone, k) in &runs {
                            after.extend_from_slice(&before[old..gone.start]);
                            let start = after.len();
                            after.extend_from_slice(&new[..*k]);
                            spans.push((gone.clone(), start..after.len()));
                            old = gone.end;
                        }
                        after.extend_from_slice(&before[old..]);
                        let mut keys = Keys::build(&before);
                        keys.splice(&spans, &after);
                        assert_eq!(keys, Keys::build(&after), "{runs:?}");
                        let terminating: Vec<usize> = keys.terminating().collect();
                        let want: Vec<usize> = (0..after.len())
                            .filter(|&i| lifecycle::namespace_terminating(&after[i]))
                            .collect();
                        assert_eq!(terminating, want, "{runs:?}");
                        for (i, o) in after.iter().enumerate() {
                            assert_eq!(keys.refs(i).len(), o.owner_refs().len(), "{runs:?} {i}");
                        }
                    }
                }
            }
        }
    }
}
