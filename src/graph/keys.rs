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

/// The key of an object's namespace: `0` for a cluster-scoped object, even one whose
/// manifest sets a namespace (which the loader keeps, with a warning).
pub(super) fn scope_key(o: &Object) -> u64 {
    if o.namespaced {
        ns_key(&o.id.namespace)
    } else {
        0
    }
}

/// The key of a namespace (`0` for none).
pub(super) fn ns_key(ns: &str) -> u64 {
    if ns.is_empty() {
        0
    } else {
        hash(ns)
    }
}

/// The key of a (kind, name) pair in any namespace.
pub(super) fn name_key(kind: &str, name: &str) -> u64 {
    hash(&(kind, name))
}

/// The key of a (kind, name) pair in one namespace (`""`: cluster-scoped).
pub(super) fn ns_name_key(kind: &str, name: &str, ns: &str) -> u64 {
    hash(&(kind, name, ns))
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
pub(super) fn uid_key(uid: &str) -> u64 {
    if uid.is_empty() {
        0
    } else {
        hash(uid)
    }
}

/// The key of an object's app instance (`0` when it has none).
pub(super) fn instance_key(o: &Object) -> u64 {
    apps::instance_of(o).map_or(0, |k| hash(&k))
}

/// One object's keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Key {
    pub ns: u64,
    /// (kind, name) in any namespace, and in the object's own (see [`ns_name_key`]).
    pub name: u64,
    pub ns_name: u64,
    pub uid: u64,
    pub instance: u64,
    /// For a Terminating Namespace object: the key of the namespace it is (its finding lists
    /// what is still inside); else `0`.
    pub terminating_ns: u64,
}

impl Key {
    pub fn of(o: &Object) -> Key {
        Key {
            ns: scope_key(o),
            name: name_key(&o.id.kind, &o.id.name),
            ns_name: ns_name_key(&o.id.kind, &o.id.name, scope_ns(o)),
            uid: o.uid.as_deref().map_or(0, uid_key),
            instance: instance_key(o),
            terminating_ns: if lifecycle::is_namespace(o) && lifecycle::namespace_terminating(o) {
                ns_key(&o.id.name)
            } else {
                0
            },
        }
    }
}

/// One ownerReference's keys: what it names in the dependent's namespace and in the
/// cluster scope, in any namespace (the "exists elsewhere" hint of an unresolved
/// reference), and by uid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RefKey {
    pub here: u64,
    pub cluster: u64,
    pub anywhere: u64,
    pub uid: u64,
}

/// The keys of `o`'s ownerReferences.
pub(super) fn ref_keys(o: &Object) -> impl Iterator<Item = RefKey> + '_ {
    let ns = scope_ns(o);
    o.owner_refs.iter().map(move |r| RefKey {
        here: ns_name_key(&r.kind, &r.name, ns),
        cluster: ns_name_key(&r.kind, &r.name, ""),
        anywhere: name_key(&r.kind, &r.name),
        uid: uid_key(&r.uid),
    })
}

/// Keys of every object, and of every ownerReference by object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Keys {
    pub objects: Vec<Key>,
    /// `refs[ref_offsets[i]..ref_offsets[i + 1]]` are object `i`'s ownerReferences.
    ref_offsets: Vec<u32>,
    refs: Vec<RefKey>,
    /// Per object: some ownerReference of it did not resolve in its own scope (set from the
    /// findings when the graph is assembled).
    pub unresolved: Vec<bool>,
}

impl Keys {
    pub fn build(objects: &[Object]) -> Keys {
        let mut keys = Keys {
            objects: Vec::with_capacity(objects.len()),
            ref_offsets: Vec::with_capacity(objects.len() + 1),
            refs: Vec::new(),
            unresolved: Vec::new(),
        };
        keys.ref_offsets.push(0);
        keys.extend(objects);
        keys
    }

    fn extend(&mut self, objects: &[Object]) {
        for o in objects {
            self.objects.push(Key::of(o));
            self.refs.extend(ref_keys(o));
            self.ref_offsets
                .push(u32::try_from(self.refs.len()).unwrap_or(u32::MAX));
        }
    }

    /// The ownerReference keys of object `i`.
    pub fn refs(&self, i: usize) -> &[RefKey] {
        match (self.ref_offsets.get(i), self.ref_offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.refs[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The keys after replacing old runs `(old range, new range)` (ascending) by the
    /// objects now at the new ranges of `objects`.
    pub fn spliced(&self, runs: &[(Range<usize>, Range<usize>)], objects: &[Object]) -> Keys {
        let mut out = Keys {
            objects: Vec::with_capacity(objects.len()),
            ref_offsets: Vec::with_capacity(objects.len() + 1),
            refs: Vec::with_capacity(self.refs.len()),
            unresolved: Vec::new(),
        };
        out.ref_offsets.push(0);
        let mut old = 0;
        for (gone, added) in runs {
            out.copy(self, old..gone.start);
            out.extend(&objects[added.clone()]);
            old = gone.end;
        }
        out.copy(self, old..self.objects.len());
        out
    }

    /// Appends `from`'s keys of objects `range`.
    fn copy(&mut self, from: &Keys, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        self.objects.extend_from_slice(&from.objects[range.clone()]);
        let (a, b) = (
            from.ref_offsets[range.start] as usize,
            from.ref_offsets[range.end] as usize,
        );
        let base = self.refs.len() as i64 - a as i64;
        self.refs.extend_from_slice(&from.refs[a..b]);
        self.ref_offsets.extend(
            from.ref_offsets[range.start + 1..=range.end]
                .iter()
                .map(|&o| u32::try_from(o as i64 + base).unwrap_or(u32::MAX)),
        );
    }
}
