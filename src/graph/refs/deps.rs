//! What a patch needs to find the objects whose references a change can resolve
//! differently: per object, hashes of the lookups linking it can make (its dependencies)
//! and of what it answers (its identity, and the selection-like links it takes part in).
//!
//! Both depend on the object alone (and the kind table), so a patch computes them only for
//! the added objects and splices them in. A hash stands for a set of values: two sharing
//! one only make a patch relink more, never less.

use std::hash::{Hash, Hasher};
use std::ops::Range;

use rustc_hash::{FxHashSet, FxHasher};

use crate::graph::{positions_where, run_holding};

use crate::model::Object;

/// A lookup's or an answer's key: 32 bits of a hash (its high half, where the hasher mixes
/// best), never 0 ("none"). A patch scans every object's keys: at 32 bits they are half
/// the memory to read (and to move when positions move).
pub type DepKey = u32;

/// The key every ClusterRole answers and every aggregating ClusterRole depends on (its
/// selection can pick any ClusterRole).
pub const AGGREGATION: DepKey = 0xA66E_0003;

fn hash<T: Hash + ?Sized>(v: &T) -> DepKey {
    let mut h = FxHasher::default();
    v.hash(&mut h);
    // 0 means "none".
    (h.finish() >> 32) as u32 | 1
}

/// The key of an object (kind, name, namespace), the group aside (legacy groups name the
/// same resource).
pub fn target_key(kind: &str, name: &str, namespace: &str) -> DepKey {
    hash(&(kind, name, namespace))
}

/// The key of the EndpointSlices of Service `name` in `namespace`.
pub fn slices_key(namespace: &str, name: &str) -> DepKey {
    hash(&("EndpointSlice→", namespace, name))
}

/// What object `o` answers: its identity, and for an EndpointSlice its Service's slices,
/// for a ClusterRole [`AGGREGATION`] (else `0`).
pub fn provides(o: &Object) -> [DepKey; 2] {
    let id = &o.id;
    let extra = match (&*id.group, &*id.kind) {
        ("discovery.k8s.io", "EndpointSlice") => o
            .labels()
            .get("kubernetes.io/service-name")
            .map_or(0, |svc| slices_key(&id.namespace, svc)),
        ("rbac.authorization.k8s.io", "ClusterRole") => AGGREGATION,
        _ => 0,
    };
    [target_key(&id.kind, &id.name, &id.namespace), extra]
}

/// Hashes per object, flat: object `i`'s are `keys[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerObject {
    offsets: Vec<u32>,
    keys: Vec<DepKey>,
}

impl Default for PerObject {
    fn default() -> PerObject {
        PerObject {
            offsets: vec![0],
            keys: Vec::new(),
        }
    }
}

impl PerObject {
    /// A key of the current object.
    pub fn push(&mut self, key: DepKey) {
        self.keys.push(key);
    }

    /// Ends the current object (the next key is the next object's).
    pub fn end_object(&mut self) {
        self.offsets
            .push(u32::try_from(self.keys.len()).unwrap_or(u32::MAX));
    }

    /// The keys of object `i`.
    pub fn get(&self, i: usize) -> &[DepKey] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.keys[a as usize..b as usize],
            _ => &[],
        }
    }

    /// These objects followed by `next`'s.
    pub fn append(&mut self, next: PerObject) {
        let shift = self.offsets.last().copied().unwrap_or(0);
        self.offsets
            .extend(next.offsets[1..].iter().map(|&o| o + shift));
        self.keys.extend(next.keys);
    }

    /// Positions of the objects with a key in `set`, ascending (one pass over the keys).
    pub fn having(&self, set: &KeySet) -> Vec<usize> {
        if set.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<usize> = positions_where(&self.keys, |&k| set.contains(k))
            .into_iter()
            .map(|j| run_holding(&self.offsets, j))
            .collect();
        out.dedup();
        out
    }

    /// Replaces old runs `(old range, new range)` (ascending, not overlapping) by the
    /// objects of `added` (the new ranges' objects, in order), in place.
    pub fn splice(&mut self, runs: &[(Range<usize>, Range<usize>)], added: &PerObject) {
        // The start, in `added`, of each run's objects.
        let mut firsts = Vec::with_capacity(runs.len());
        let mut first = 0;
        for (_, new) in runs {
            firsts.push(first);
            first += new.len();
        }
        // Last run first: the old positions of the runs before it stay valid.
        for ((gone, new), &first) in runs.iter().zip(&firsts).rev() {
            let (Some(&a), Some(&b)) = (self.offsets.get(gone.start), self.offsets.get(gone.end))
            else {
                continue;
            };
            let keys_at = |i: usize| added.offsets.get(i).copied().unwrap_or(0);
            let (x, y) = (keys_at(first), keys_at(first + new.len()));
            let offsets = (first + 1..=first + new.len()).map(|i| a + keys_at(i) - x);
            self.offsets.splice(gone.start + 1..gone.end + 1, offsets);
            self.keys.splice(
                a as usize..b as usize,
                added.keys[x as usize..y as usize].iter().copied(),
            );
            let (added_keys, removed_keys) = (y - x, b - a);
            if added_keys != removed_keys {
                for o in &mut self.offsets[gone.start + 1 + new.len()..] {
                    *o = *o - removed_keys + added_keys;
                }
            }
        }
    }
}

/// A set of keys, with a bitmap in front: most keys a scan tests are in no set.
pub struct KeySet {
    set: FxHashSet<u32>,
    bits: Vec<u64>,
}

const BITMAP_WORDS: usize = 64;

impl Default for KeySet {
    fn default() -> KeySet {
        KeySet {
            set: FxHashSet::default(),
            bits: vec![0; BITMAP_WORDS],
        }
    }
}

impl KeySet {
    #[inline]
    fn slot(key: u32) -> (usize, u64) {
        // Above the lowest bits (which the keys' `| 1` and the hasher's weak low bits skew).
        let bit = (key >> 8) as usize % (BITMAP_WORDS * 64);
        (bit / 64, 1 << (bit % 64))
    }

    /// Adds `key` (`0`, "none", is not added).
    pub fn insert(&mut self, key: u32) {
        if key == 0 {
            return;
        }
        let (w, b) = KeySet::slot(key);
        self.bits[w] |= b;
        self.set.insert(key);
    }

    /// Inlined: scans over a million keys call it once per key.
    #[inline]
    pub fn contains(&self, key: u32) -> bool {
        let (w, b) = KeySet::slot(key);
        self.bits[w] & b != 0 && self.set.contains(&key)
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

/// Positions of the objects of `provided` (as [`provides`]) answering a key of `set`.
pub fn providing(provided: &[[DepKey; 2]], set: &KeySet) -> Vec<usize> {
    if set.is_empty() {
        return Vec::new();
    }
    positions_where(provided, |p| {
        set.contains(p[0]) || (p[1] != 0 && set.contains(p[1]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::SCAN_CHUNK;

    /// Scanned in chunks on every core, the objects found are those a plain pass finds, in
    /// order, across chunk boundaries (objects with no keys, one, several; a key met
    /// twice by one object counts it once).
    #[test]
    fn chunked_scans_find_what_a_plain_pass_finds() {
        let n = 3 * SCAN_CHUNK + 17;
        let key = |i: usize| (i as u32 % 1000) * 2 + 1;
        let mut deps = PerObject::default();
        let mut provided: Vec<[DepKey; 2]> = Vec::with_capacity(n);
        for i in 0..n {
            for k in 0..i % 3 {
                deps.push(key(i + k));
            }
            if i % 7 == 0 {
                deps.push(key(i));
                deps.push(key(i));
            }
            deps.end_object();
            provided.push([key(i), if i % 5 == 0 { AGGREGATION } else { 0 }]);
        }
        let mut set = KeySet::default();
        for k in [key(0), key(999), key(SCAN_CHUNK)] {
            set.insert(k);
        }
        let plain_having: Vec<usize> = (0..n)
            .filter(|&i| deps.get(i).iter().any(|&k| set.contains(k)))
            .collect();
        assert!(plain_having.len() > 100 && plain_having.last() > Some(&(2 * SCAN_CHUNK)));
        assert_eq!(deps.having(&set), plain_having);
        let plain_providing: Vec<usize> =
            (0..n).filter(|&i| set.contains(provided[i][0])).collect();
        assert_eq!(providing(&provided, &set), plain_providing);
        set.insert(AGGREGATION);
        let with_aggregation: Vec<usize> = (0..n)
            .filter(|&i| set.contains(provided[i][0]) || provided[i][1] == AGGREGATION)
            .collect();
        assert_eq!(providing(&provided, &set), with_aggregation);
        assert!(deps.having(&KeySet::default()).is_empty());
    }
}
