//! Label index: label key → value → bitmap of object indices.
//!
//! Selector evaluation is set algebra over these bitmaps: a requirement on key `k` only
//! looks at `k`'s value, so it is decided once per distinct value (and once for "absent")
//! instead of once per object. Equality terms cost a lookup, negations a complement.

use std::collections::BTreeMap;

use roaring::RoaringBitmap;

use crate::model::{Object, Str};

/// Objects carrying one label key, split by value.
#[derive(Clone, Debug, Default)]
struct KeyEntry {
    values: BTreeMap<Str, RoaringBitmap>,
    /// Every object carrying the key (union of `values`).
    all: RoaringBitmap,
}

/// Label key → value → object indices (positions in `Inventory.objects`).
#[derive(Clone, Debug, Default)]
pub struct LabelIndex {
    keys: BTreeMap<Str, KeyEntry>,
    len: u32,
}

impl LabelIndex {
    /// Indexes every object's labels.
    pub fn build(objects: &[Object]) -> LabelIndex {
        let mut index = LabelIndex::default();
        for (i, obj) in objects.iter().enumerate() {
            let Ok(id) = u32::try_from(i) else { break };
            for (k, v) in &obj.labels {
                let entry = index.keys.entry(k.clone()).or_default();
                entry.values.entry(v.clone()).or_default().insert(id);
                entry.all.insert(id);
            }
            index.len = id + 1;
        }
        index
    }

    /// Number of objects indexed.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether no object was indexed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every indexed object.
    pub fn universe(&self) -> RoaringBitmap {
        let mut all = RoaringBitmap::new();
        all.insert_range(0..self.len);
        all
    }

    /// Objects of `universe` whose value of `key` satisfies `pred` (`None` = key absent).
    ///
    /// `pred` is asked once per distinct value plus once for "absent".
    pub fn eval_key(
        &self,
        key: &str,
        pred: impl Fn(Option<&str>) -> bool,
        universe: &RoaringBitmap,
    ) -> RoaringBitmap {
        let mut out = RoaringBitmap::new();
        let entry = self.keys.get(key);
        if pred(None) {
            out = universe.clone();
            if let Some(e) = entry {
                out -= &e.all;
            }
        }
        if let Some(e) = entry {
            for (value, ids) in &e.values {
                if pred(Some(value)) {
                    out |= ids & universe;
                }
            }
        }
        out
    }

    /// Label keys with the number of objects carrying each, sorted by key.
    pub fn keys(&self) -> impl Iterator<Item = (&str, u64)> {
        self.keys.iter().map(|(k, e)| (&**k, e.all.len()))
    }

    /// Values of `key` with the number of objects carrying each, sorted by value.
    pub fn values(&self, key: &str) -> Vec<(&str, u64)> {
        self.keys
            .get(key)
            .map(|e| e.values.iter().map(|(v, ids)| (&**v, ids.len())).collect())
            .unwrap_or_default()
    }

    /// The `n` keys carried by the most objects (ties broken by key), for default columns.
    pub fn most_common_keys(&self, n: usize) -> Vec<String> {
        let mut keys: Vec<(&str, u64)> = self.keys().collect();
        keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        keys.into_iter()
            .take(n)
            .map(|(k, _)| k.to_string())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::load::parse_text;
    use std::path::Path;
    use std::sync::Arc;

    fn objects() -> Vec<Object> {
        let text = "\
apiVersion: v1\nkind: Pod\nmetadata: {name: a, labels: {app: web, tier: fe}}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: b, labels: {app: db}}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: c}\n";
        parse_text(&Arc::from(Path::new("x.yaml")), text).objects
    }

    #[test]
    fn counts_keys_and_values() {
        let idx = LabelIndex::build(&objects());
        assert_eq!(idx.len(), 3);
        assert_eq!(
            idx.keys().collect::<Vec<_>>(),
            vec![("app", 2), ("tier", 1)]
        );
        assert_eq!(idx.values("app"), vec![("db", 1), ("web", 1)]);
        assert!(idx.values("nope").is_empty());
        assert_eq!(idx.most_common_keys(1), vec!["app".to_string()]);
    }

    #[test]
    fn eval_key_covers_absent_and_values() {
        let idx = LabelIndex::build(&objects());
        let all = idx.universe();
        let ne_web = idx.eval_key("app", |v| v != Some("web"), &all);
        assert_eq!(ne_web.iter().collect::<Vec<_>>(), vec![1, 2]);
        let exists = idx.eval_key("app", |v| v.is_some(), &all);
        assert_eq!(exists.iter().collect::<Vec<_>>(), vec![0, 1]);
        let mut some = RoaringBitmap::new();
        some.insert(1);
        let in_some = idx.eval_key("app", |v| v.is_some(), &some);
        assert_eq!(in_some.iter().collect::<Vec<_>>(), vec![1]);
    }
}
