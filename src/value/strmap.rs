//! [`StrMap`]: the labels (and annotations) of an object — a small, immutable, sorted map
//! of shared strings.
//!
//! A `BTreeMap` allocates a node sized for 11 entries even for one label (~370 B with
//! `Arc<str>` keys and values); a sorted boxed slice takes 32 B per entry and nothing when
//! empty. Lookups are binary searches; iteration is in key order, as a `BTreeMap`'s.

use std::borrow::Borrow;
use std::fmt;

use super::raw::ObjectIter;
use super::{RawObject, RawRef, Str};

/// A map from label key to value, sorted by key; the read API mirrors `BTreeMap`'s.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct StrMap(Box<[(Str, Str)]>);

/// Entries of a [`StrMap`] as `(&key, &value)`, in key order.
pub type Iter<'a> =
    std::iter::Map<std::slice::Iter<'a, (Str, Str)>, fn(&(Str, Str)) -> (&Str, &Str)>;

fn pair(e: &(Str, Str)) -> (&Str, &Str) {
    (&e.0, &e.1)
}

impl StrMap {
    pub fn new() -> StrMap {
        StrMap::default()
    }

    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        Str: Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&Str>
    where
        Str: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        Str: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> Iter<'_> {
        self.0.iter().map(pair as fn(&(Str, Str)) -> (&Str, &Str))
    }

    pub fn keys(&self) -> impl Iterator<Item = &Str> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &Str> {
        self.0.iter().map(|(_, v)| v)
    }

    /// Sets `key` to `value`, returning the previous value (rebuilds the slice: for tests
    /// and tools, not for bulk building — collect an iterator instead).
    pub fn insert(&mut self, key: Str, value: Str) -> Option<Str> {
        let mut entries = std::mem::take(&mut self.0).into_vec();
        let old = match entries.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => Some(std::mem::replace(&mut entries[i].1, value)),
            Err(i) => {
                entries.insert(i, (key, value));
                None
            }
        };
        self.0 = entries.into_boxed_slice();
        old
    }
}

impl FromIterator<(Str, Str)> for StrMap {
    /// As collecting into a `BTreeMap`: sorted by key, the last value of a repeated key wins.
    fn from_iter<I: IntoIterator<Item = (Str, Str)>>(iter: I) -> StrMap {
        let mut entries: Vec<(Str, Str)> = iter.into_iter().collect();
        // Stable, so equal keys stay in input order and the last one is kept below.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Str, Str)> = Vec::with_capacity(entries.len());
        for e in entries {
            match out.last_mut() {
                Some(last) if last.0 == e.0 => *last = e,
                _ => out.push(e),
            }
        }
        StrMap(out.into_boxed_slice())
    }
}

impl<const N: usize> From<[(Str, Str); N]> for StrMap {
    fn from(entries: [(Str, Str); N]) -> StrMap {
        entries.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a StrMap {
    type Item = (&'a Str, &'a Str);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl fmt::Debug for StrMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A `map[string]string` read in place from a [`super::Raw`] (an object's labels or
/// annotations): the same answers as the [`StrMap`] of its entries, without a copy. Entries
/// are in key order (a `Raw` object is sorted by key and has no repeated key); a value that
/// is not a string (`null`) reads as `""`. `Default`: the empty map.
#[derive(Clone, Copy, Default)]
pub struct StrMapRef<'a>(RawObject<'a>);

impl<'a> StrMapRef<'a> {
    /// The map `value` holds; empty when it is not an object.
    pub fn new(value: Option<RawRef<'a>>) -> StrMapRef<'a> {
        StrMapRef(value.and_then(RawRef::as_object).unwrap_or_default())
    }

    pub fn get(self, key: &str) -> Option<&'a str> {
        self.0.get(key).map(text)
    }

    pub fn contains_key(self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    pub fn len(self) -> usize {
        self.0.len()
    }

    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// Entries in key order.
    pub fn iter(self) -> RefIter<'a> {
        RefIter(self.0.iter())
    }

    pub fn keys(self) -> impl Iterator<Item = &'a str> {
        self.0.keys()
    }

    pub fn values(self) -> impl Iterator<Item = &'a str> {
        self.0.values().map(text)
    }

    /// A copy as a [`StrMap`].
    pub fn to_map(self) -> StrMap {
        self.iter()
            .map(|(k, v)| (Str::from(k), Str::from(v)))
            .collect()
    }
}

/// Entries of a [`StrMapRef`] as `(key, value)`, in key order.
#[derive(Clone)]
pub struct RefIter<'a>(ObjectIter<'a>);

impl<'a> Iterator for RefIter<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<(&'a str, &'a str)> {
        self.0.next().map(|(k, v)| (k, text(v)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<'a> IntoIterator for StrMapRef<'a> {
    type Item = (&'a str, &'a str);
    type IntoIter = RefIter<'a>;
    fn into_iter(self) -> RefIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &StrMapRef<'a> {
    type Item = (&'a str, &'a str);
    type IntoIter = RefIter<'a>;
    fn into_iter(self) -> RefIter<'a> {
        self.iter()
    }
}

fn text(v: RawRef<'_>) -> &str {
    v.as_str().unwrap_or("")
}

impl PartialEq for StrMapRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for StrMapRef<'_> {}

impl fmt::Debug for StrMapRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    fn s(x: &str) -> Str {
        Str::from(x)
    }

    #[test]
    fn sorted_lookup_and_last_wins() {
        let m: StrMap = [(s("b"), s("1")), (s("a"), s("2")), (s("b"), s("3"))]
            .into_iter()
            .collect();
        assert_eq!(m.len(), 2);
        assert_eq!(m.get("b").map(|v| &**v), Some("3"));
        assert_eq!(m.get("a").map(|v| &**v), Some("2"));
        assert!(m.get("c").is_none());
        assert!(m.contains_key("a") && !m.contains_key(""));
        let keys: Vec<&str> = m.keys().map(|k| &**k).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(format!("{m:?}"), r#"{"a": "2", "b": "3"}"#);
        assert!(StrMap::new().is_empty());
    }

    #[test]
    fn insert_keeps_order() {
        let mut m = StrMap::new();
        assert_eq!(m.insert(s("z"), s("1")), None);
        assert_eq!(m.insert(s("a"), s("2")), None);
        assert_eq!(m.insert(s("z"), s("3")).as_deref(), Some("1"));
        let pairs: Vec<(&str, &str)> = m.iter().map(|(k, v)| (&**k, &**v)).collect();
        assert_eq!(pairs, [("a", "2"), ("z", "3")]);
    }

    proptest! {
        #[test]
        fn behaves_like_a_btreemap(entries in prop::collection::vec(("[a-d]{0,2}", "[x-z]{0,2}"), 0..12), probe in "[a-d]{0,2}") {
            let m: StrMap = entries.iter().map(|(k, v)| (s(k), s(v))).collect();
            let b: BTreeMap<Str, Str> = entries.iter().map(|(k, v)| (s(k), s(v))).collect();
            prop_assert_eq!(m.len(), b.len());
            prop_assert!(m.iter().eq(b.iter()));
            prop_assert_eq!(m.get(probe.as_str()), b.get(probe.as_str()));
        }
    }
}
