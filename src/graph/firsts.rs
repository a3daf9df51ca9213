//! The first position of each key (an identity, a uid, …) among many objects, found by a
//! 64-bit hash of the key: the lookup tables of a graph build.
//!
//! A map from the key's strings costs 72 bytes an entry (four `&str` and a position) and
//! there is one per table of every object; this one costs 16. The key itself is not stored:
//! the caller tells whether a position holds it, so two keys sharing a hash only cost a
//! look at `spill`, never a wrong answer.

use rustc_hash::FxHashMap;

use super::keys::hash;
use crate::model::ObjectId;

/// The hash of an identity (group, kind, namespace, name), as [`Firsts`] keys it.
pub(super) fn id_hash(group: &str, kind: &str, namespace: &str, name: &str) -> u64 {
    hash(&(group, kind, namespace, name))
}

/// Whether `id` is the identity (group, kind, namespace, name).
pub(super) fn is_id(id: &ObjectId, group: &str, kind: &str, namespace: &str, name: &str) -> bool {
    *id.name == *name && *id.kind == *kind && *id.namespace == *namespace && *id.group == *group
}

/// First positions by key hash (see the module doc).
#[derive(Debug, Default)]
pub(super) struct Firsts {
    by_hash: FxHashMap<u64, u32>,
    /// Positions whose hash the first position of another key took, ascending.
    spill: Vec<u32>,
}

impl Firsts {
    /// Room for `n` keys.
    pub fn with_capacity(n: usize) -> Firsts {
        Firsts {
            by_hash: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            spill: Vec::new(),
        }
    }

    /// Records position `i` of a key hashing to `hash`, positions ascending across calls:
    /// `same(j)` tells whether position `j` holds the same key as `i`.
    pub fn insert(&mut self, hash: u64, i: usize, same: impl FnOnce(usize) -> bool) {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        match self.by_hash.entry(hash) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i);
            }
            std::collections::hash_map::Entry::Occupied(e) => {
                if !same(*e.get() as usize) {
                    self.spill.push(i);
                }
            }
        }
    }

    /// The first recorded position of the key hashing to `hash` that `is` says holds it.
    pub fn get(&self, hash: u64, is: impl Fn(usize) -> bool) -> Option<usize> {
        let first = *self.by_hash.get(&hash)? as usize;
        if is(first) {
            return Some(first);
        }
        self.spill.iter().map(|&i| i as usize).find(|&i| is(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_of_each_key_even_when_hashes_collide() {
        // Keys by position; every key hashes to 7 but "c" (to 9).
        let keys = ["a", "b", "a", "c", "b", "d"];
        let hash = |k: &str| if k == "c" { 9 } else { 7 };
        let mut f = Firsts::default();
        for (i, k) in keys.iter().enumerate() {
            f.insert(hash(k), i, |j| keys[j] == *k);
        }
        let first = |k: &str| f.get(hash(k), |i| keys[i] == k);
        assert_eq!(first("a"), Some(0));
        assert_eq!(first("b"), Some(1));
        assert_eq!(first("c"), Some(3));
        assert_eq!(first("d"), Some(5));
        assert_eq!(first("e"), None);
        assert_eq!(f.get(9, |i| keys[i] == "a"), None);
        assert_eq!(f.spill, vec![1, 4, 5]);
    }
}
