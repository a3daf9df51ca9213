//! Label index: label key → value → bitmap of object indices.
//!
//! Selector evaluation is set algebra over these bitmaps: a requirement on key `k` only
//! looks at `k`'s value, so it is decided once per distinct value (and once for "absent")
//! instead of once per object. Equality terms cost a lookup, negations a complement.

use std::collections::hash_map::Entry;
use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;
use roaring::{MultiOps, RoaringBitmap};
use rustc_hash::FxHashMap;

use crate::model::Object;

use crate::value::Str;

mod ids;
use ids::Ids;

/// Calls `f` with each id of `bits`, ascending. Much faster than the bitmap's iterator on
/// large sets (a million matches on every keystroke): it takes the ids a block at a time,
/// where the iterator is called, not inlined, once per id (BENCHMARKS.md, "iter1m").
///
/// One block call per 2^16 ids at most: roaring 0.12.0's `next_many` overflows (in a
/// release build: skips every id) on a run container holding all 2^16 ids of its range,
/// so a full range is called here without asking the bitmap for its ids.
pub fn for_each_id(bits: &RoaringBitmap, mut f: impl FnMut(u32)) {
    let (Some(min), Some(max)) = (bits.min(), bits.max()) else {
        return;
    };
    let mut block = [0u32; 512];
    for high in (min >> 16)..=(max >> 16) {
        let range = high << 16..=(high << 16 | 0xffff);
        match bits.range_cardinality(range.clone()) {
            0 => {}
            0x1_0000 => range.for_each(&mut f),
            _ => {
                let mut ids = bits.range(range);
                loop {
                    let got = ids.next_many(&mut block);
                    if got.is_empty() {
                        break;
                    }
                    got.iter().for_each(|&i| f(i));
                }
            }
        }
    }
}

/// While building: value → ids carrying it in ascending order.
type ValueIds<'a> = FxHashMap<&'a str, Vec<u32>>;

/// While building: key → its values (texts borrowed from the objects).
type KeyIds<'a> = FxHashMap<&'a str, ValueIds<'a>>;

/// One run's keys, each once, with their values.
type Grouped<'a> = Vec<(&'a str, ValueIds<'a>)>;

/// Objects carrying one label key, split by value.
#[derive(Clone, Debug, Default, PartialEq)]
struct KeyEntry {
    values: BTreeMap<Str, Ids>,
    /// Every object carrying the key (union of `values`).
    all: RoaringBitmap,
}

/// The ids above spliced runs moving by what the runs below them gained or lost, as work
/// threads share ([`LabelIndex::splice_sharing`]): every bitmap apart (they are
/// independent), taken a chunk at a time by whichever thread asks.
pub struct Shift<'a> {
    bitmaps: Mutex<std::vec::IntoIter<Target<'a>>>,
    /// Ascending: ids from `bounds[k].0` on (up to the next bound) move by `bounds[k].1`
    /// (the end of a run, in ids before the splice, and what the runs up to it gained).
    bounds: Vec<(u32, i64)>,
}

impl<'a> Shift<'a> {
    /// Bitmaps per chunk: small, so that the last chunk a slow thread holds is short
    /// (tests: a few, so that small indexes are shared out in many chunks).
    const CHUNK: usize = if cfg!(test) { 3 } else { 64 };

    fn new(bitmaps: Vec<Target<'a>>, bounds: Vec<(u32, i64)>) -> Shift<'a> {
        Shift {
            bitmaps: Mutex::new(bitmaps.into_iter()),
            bounds,
        }
    }

    /// Nothing to move.
    fn none() -> Shift<'a> {
        Shift::new(Vec::new(), Vec::new())
    }

    /// The first id that moves.
    fn from(&self) -> u32 {
        self.bounds.first().map_or(u32::MAX, |b| b.0)
    }

    /// Of the ids from `i` (at or above [`Shift::from`]) on: the last that moves as `i`
    /// does, and by how much.
    fn segment(&self, i: u32) -> (u32, i64) {
        let k = self.bounds.partition_point(|b| b.0 <= i).saturating_sub(1);
        let last = self.bounds.get(k + 1).map_or(u32::MAX, |next| next.0 - 1);
        (last, self.bounds.get(k).map_or(0, |b| b.1))
    }

    /// The bitmaps no thread took yet, at most `n`.
    fn take(&self, n: usize) -> Vec<Target<'a>> {
        // A thread that panicked holding the lock only took bitmaps out: the rest is whole.
        let mut left = self.bitmaps.lock().unwrap_or_else(PoisonError::into_inner);
        left.by_ref().take(n).collect()
    }

    /// Shifts chunks until none is left (other threads may still be finishing theirs).
    pub fn work(&self) {
        let mut runs = Vec::new();
        loop {
            let chunk = self.take(Shift::CHUNK);
            if chunk.is_empty() {
                return;
            }
            for ids in chunk {
                ids.shift(self, &mut runs);
            }
        }
    }

    /// Every bitmap left at once, on the rayon pool.
    pub fn work_on_every_core(&self) {
        self.take(usize::MAX)
            .into_par_iter()
            .with_min_len(256)
            .for_each_init(Vec::new, |runs, ids| ids.shift(self, runs));
    }
}

/// What a [`Shift`] moves: a key's `all`, or a value's ids.
enum Target<'a> {
    All(&'a mut RoaringBitmap),
    Value(&'a mut Ids),
}

impl Target<'_> {
    fn shift(self, shift: &Shift<'_>, runs: &mut Vec<(u32, u32)>) {
        match self {
            Target::All(ids) => shift_above(ids, shift, runs),
            Target::Value(ids) => ids.shift(shift, runs),
        }
    }
}

/// One run a splice replaces ([`LabelIndex::splice_runs_sharing`]): the objects indexed
/// from `at` (an id before the splice) on, and the objects that take their place.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    pub at: u32,
    pub removed: &'a [Object],
    pub added: &'a [Object],
}

/// Label key → value → object indices (positions in `Inventory.objects`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelIndex {
    keys: BTreeMap<Str, KeyEntry>,
    len: u32,
}

impl LabelIndex {
    /// Indexes every object's labels.
    ///
    /// Ids are collected per key and value first and each bitmap is built once from its
    /// sorted ids, instead of inserting id by id into the ordered maps (cheaper per label;
    /// see `benches/index.rs`). Runs of objects are collected in parallel, grouped by the
    /// text of each label (read in place from the objects); groups are then merged.
    pub fn build(objects: &[Object]) -> LabelIndex {
        const RUN: usize = 8192;
        let len = u32::try_from(objects.len()).unwrap_or(u32::MAX);
        let runs: Vec<Grouped<'_>> = objects
            .par_chunks(RUN)
            .enumerate()
            .map(|(run, objs)| collect(run * RUN, objs))
            .collect();
        // Runs in order, so ids stay ascending within one value.
        let mut ids: KeyIds<'_> = KeyIds::default();
        for run in runs {
            for (key, values) in run {
                let all = ids.entry(key).or_default();
                for (value, more) in values {
                    // A value first met here keeps its run's ids (no copy).
                    match all.entry(value) {
                        Entry::Occupied(ids) => ids.into_mut().extend(more),
                        Entry::Vacant(slot) => {
                            slot.insert(more);
                        }
                    }
                }
            }
        }
        let mut keys: Vec<(Str, KeyEntry)> = ids
            .into_par_iter()
            .map(|(key, values)| (Str::from(key), key_entry(values)))
            .collect();
        keys.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        LabelIndex {
            keys: keys.into_iter().collect(),
            len,
        }
    }

    /// Appends the labels of `objects` as ids `len()..`: what a partial batch of a load
    /// adds. Labels are grouped by key and value first, so each key and value is looked up
    /// in the ordered maps once per batch (not once per label) and each bitmap grows by one
    /// sorted run.
    fn append(&mut self, objects: &[Object]) {
        let base = self.len;
        let ids = collect(usize::try_from(base).unwrap_or(usize::MAX), objects);
        self.len = base.saturating_add(u32::try_from(objects.len()).unwrap_or(u32::MAX));
        for (key, values) in ids {
            if !self.keys.contains_key(key) {
                self.keys.insert(Str::from(key), KeyEntry::default());
            }
            let Some(entry) = self.keys.get_mut(key) else {
                continue;
            };
            let mut all: Vec<u32> = Vec::new();
            for (value, ids) in values {
                all.extend_from_slice(&ids);
                match entry.values.get_mut(value) {
                    Some(have) => have.append_sorted(ids),
                    None => {
                        entry
                            .values
                            .insert(Str::from(value), Ids::from_sorted(&ids));
                    }
                }
            }
            all.sort_unstable();
            append_sorted(&mut entry.all, all);
        }
    }

    /// Replaces the labels of objects `at..at + old.len()` (`old` as indexed before) with
    /// those of `new`, which must have the same length: a file edit that kept its object
    /// count. Cost: proportional to the labels of the objects whose labels changed (an edit
    /// of one object in a file of a thousand touches one object's labels), not to the
    /// index. Returns `false` (and changes nothing) when the lengths differ; rebuild then.
    pub fn replace(&mut self, at: u32, old: &[Object], new: &[Object]) -> bool {
        if old.len() != new.len() {
            return false;
        }
        let changed = (at..)
            .zip(old.iter().zip(new))
            .filter(|(_, (o, n))| o.labels() != n.labels());
        for (id, (o, n)) in changed {
            for (k, v) in &o.labels() {
                self.remove_label(k, v, id);
            }
            for (k, v) in &n.labels() {
                self.add_label(k, v, id);
            }
        }
        true
    }

    /// Replaces the objects `at..at + removed.len()` (`removed` as indexed before) with
    /// `added`, of any length: ids after the run move by the difference. Cost: the labels
    /// of `removed` and `added`, plus, when the lengths differ, one pass over the ids above
    /// `at` (no label is hashed again), on every core.
    pub fn splice(&mut self, at: u32, removed: &[Object], added: &[Object]) {
        self.splice_sharing(at, removed, added, |shift| shift.work_on_every_core());
    }

    /// [`LabelIndex::splice`] whose pass over the ids above the run is work that `during`
    /// hands out (to threads that each call [`Shift::work`] until it returns); what it
    /// leaves is done here before the added labels go in. Returns what `during` returns.
    pub fn splice_sharing<R>(
        &mut self,
        at: u32,
        removed: &[Object],
        added: &[Object],
        during: impl FnOnce(&Shift<'_>) -> R,
    ) -> R {
        let run = Run { at, removed, added };
        self.splice_runs_sharing(&[run], during)
    }

    /// Several runs spliced at once (ascending and disjoint in ids before the splice; each
    /// run's added objects take its place): what splicing them one after another gives,
    /// with one pass over the ids above the first run's end, each bitmap moved once (by
    /// each run's gain or loss above it), shared as in [`LabelIndex::splice_sharing`]. One
    /// run that ends the index (an append) or keeps its length (a replacement) moves
    /// nothing and takes a quicker path.
    pub fn splice_runs_sharing<R>(
        &mut self,
        runs: &[Run<'_>],
        during: impl FnOnce(&Shift<'_>) -> R,
    ) -> R {
        let Some(shift) = self.begin_runs(runs) else {
            return during(&Shift::none());
        };
        let out = during(&shift);
        shift.work();
        drop(shift);
        self.finish_runs(runs);
        out
    }

    /// [`LabelIndex::splice_runs_sharing`] in two halves, for a caller that shares the
    /// pass over the ids above the runs out itself (from another thread than the one that
    /// patches the graph): the removed objects' labels are taken out and the pass returned
    /// as a [`Shift`], or `None` when the splice is already whole (an append, or a run that
    /// keeps its length). Once the shift is worked to its end ([`Shift::work`] returned on
    /// every thread that took part) and dropped, [`LabelIndex::finish_runs`] with the same
    /// runs puts the added labels in.
    pub fn begin_runs(&mut self, runs: &[Run<'_>]) -> Option<Shift<'_>> {
        if let [run] = runs {
            if run.removed.is_empty() && run.at == self.len {
                self.append(run.added);
                return None;
            }
            if self.replace(run.at, run.removed, run.added) {
                return None;
            }
        }
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        for run in runs {
            for (id, o) in (run.at..).zip(run.removed) {
                for (k, v) in &o.labels() {
                    self.remove_label(k, v, id);
                }
            }
        }
        // Where each run ends (ids before the splice) and what the runs up to it gained
        // (only where that changes).
        let mut bounds: Vec<(u32, i64)> = Vec::with_capacity(runs.len());
        let mut gained = 0i64;
        for run in runs {
            let before = gained;
            gained += run.added.len() as i64 - run.removed.len() as i64;
            if gained == before {
                continue;
            }
            let end = run.at.saturating_add(to_u32(run.removed.len()));
            match bounds.last_mut() {
                // An insertion right after the run before it: ids from there move by both.
                Some(last) if last.0 == end => last.1 = gained,
                _ => bounds.push((end, gained)),
            }
        }
        // Nothing above the runs when they end the index (an append, as every partial
        // batch of a load is): visiting every value of every key per batch made loading
        // quadratic.
        let mut bitmaps: Vec<Target<'_>> = Vec::new();
        if bounds.first().is_some_and(|b| b.0 < self.len) {
            for entry in self.keys.values_mut() {
                bitmaps.push(Target::All(&mut entry.all));
                bitmaps.extend(entry.values.values_mut().map(Target::Value));
            }
        }
        Some(Shift::new(bitmaps, bounds))
    }

    /// The second half of [`LabelIndex::begin_runs`], after its shift: the added objects'
    /// labels go in, each run's at its new start (its old one moved by what the runs before
    /// it gained).
    pub fn finish_runs(&mut self, runs: &[Run<'_>]) {
        let mut gained = 0i64;
        for run in runs {
            let start = u32::try_from(i64::from(run.at) + gained).unwrap_or(u32::MAX);
            gained += run.added.len() as i64 - run.removed.len() as i64;
            for (id, o) in (start..).zip(run.added) {
                for (k, v) in &o.labels() {
                    self.add_label(k, v, id);
                }
            }
        }
        self.len = u32::try_from(i64::from(self.len) + gained).unwrap_or(u32::MAX);
    }

    fn add_label(&mut self, key: &str, value: &str, id: u32) {
        if !self.keys.contains_key(key) {
            self.keys.insert(Str::from(key), KeyEntry::default());
        }
        let Some(entry) = self.keys.get_mut(key) else {
            return;
        };
        match entry.values.get_mut(value) {
            Some(ids) => {
                ids.insert(id);
            }
            None => {
                entry
                    .values
                    .insert(Str::from(value), Ids::from_sorted(&[id]));
            }
        }
        entry.all.insert(id);
    }

    fn remove_label(&mut self, key: &str, value: &str, id: u32) {
        let Some(entry) = self.keys.get_mut(key) else {
            return;
        };
        entry.all.remove(id);
        if let Some(ids) = entry.values.get_mut(value) {
            ids.remove(id);
            if ids.is_empty() {
                entry.values.remove(value);
            }
        }
        if entry.all.is_empty() {
            self.keys.remove(key);
        }
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
                    ids.or_within(universe, &mut out);
                }
            }
        }
        out
    }

    /// Objects of `universe` carrying `key` with one of `values`: a lookup per value, however
    /// many values the key has.
    pub fn with_values(
        &self,
        key: &str,
        values: &[String],
        universe: &RoaringBitmap,
    ) -> RoaringBitmap {
        let mut out = RoaringBitmap::new();
        if let Some(e) = self.keys.get(key) {
            for ids in values.iter().filter_map(|v| e.values.get(v.as_str())) {
                ids.or_within(universe, &mut out);
            }
        }
        out
    }

    /// Objects of `universe` carrying `key`, whatever its value.
    pub fn with_key(&self, key: &str, universe: &RoaringBitmap) -> RoaringBitmap {
        self.keys
            .get(key)
            .map_or_else(RoaringBitmap::new, |e| &e.all & universe)
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
        LabelIndex::most_common_of(self.keys(), n)
    }

    /// The `n` keys of `counts` (key, objects carrying it; each key once) carried by the
    /// most objects, ties broken by key: the one ranking of default columns.
    pub fn most_common_of<'a>(
        counts: impl Iterator<Item = (&'a str, u64)>,
        n: usize,
    ) -> Vec<String> {
        let mut keys: Vec<(&str, u64)> = counts.collect();
        keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        keys.into_iter()
            .take(n)
            .map(|(k, _)| k.to_string())
            .collect()
    }
}

/// The labels of `objs` (ids from `base` on) grouped by key and value, ids ascending.
///
/// Keys are looked up by address first among the first [`BY_ADDRESS`] met: a key of the key
/// table (`value::keys`) is one text at one address however many objects carry it, and a
/// folder has a few dozen label keys, so most labels skip hashing their key.
fn collect(base: usize, objs: &[Object]) -> Grouped<'_> {
    const BY_ADDRESS: usize = 16;
    let base = u32::try_from(base).unwrap_or(u32::MAX);
    let mut keys: Grouped<'_> = Vec::new();
    let mut by_text: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, obj) in (base..).zip(objs) {
        for (k, v) in obj.labels() {
            let found = keys
                .iter()
                .take(BY_ADDRESS)
                .position(|(have, _)| std::ptr::eq(*have, k));
            let at = found.unwrap_or_else(|| {
                *by_text.entry(k).or_insert_with(|| {
                    keys.push((k, ValueIds::default()));
                    keys.len() - 1
                })
            });
            if let Some((_, values)) = keys.get_mut(at) {
                values.entry(v).or_default().push(i);
            }
        }
    }
    keys
}

/// Adds ascending `ids`, all above those of `bitmap` (appended without a search when they
/// are; inserted one by one otherwise).
fn append_sorted(bitmap: &mut RoaringBitmap, ids: Vec<u32>) {
    if bitmap.append(ids.iter().copied()).is_err() {
        bitmap.extend(ids);
    }
}

/// One key's entry from its values' ids.
///
/// The values are sorted first and the maps built from sorted runs (a key with a value per
/// object, such as an instance name, has about as many values as objects: inserting them
/// in hash order one by one into the ordered map was most of the build at 1M objects), and
/// `all` is one union over every value instead of a union per value.
fn key_entry(values: ValueIds<'_>) -> KeyEntry {
    // Sorted by their first 16 bytes as one number, the texts compared only when those tie:
    // comparing texts (a library call each) was most of the build at 1M objects.
    let mut values: Vec<(u128, &str, Vec<u32>)> = values
        .into_iter()
        .map(|(value, ids)| (prefix(value), value, ids))
        .collect();
    // Rayon splits only large keys (a key per core is the common case).
    values.par_sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    let values: Vec<(Str, Ids)> = values
        .into_par_iter()
        .map(|(_, value, mut ids)| {
            if !ids.is_sorted() {
                ids.sort_unstable();
            }
            (Str::from(value), Ids::from_sorted(&ids))
        })
        .collect();
    // The values of a few ids as one bitmap, then one union with the larger ones.
    let mut few: Vec<u32> = values
        .iter()
        .flat_map(|(_, ids)| ids.few().iter().copied())
        .collect();
    few.par_sort_unstable();
    let few = RoaringBitmap::from_sorted_iter(few).unwrap_or_default();
    let all = values
        .iter()
        .filter_map(|(_, ids)| match ids {
            Ids::Many(many) => Some(many),
            Ids::Few { .. } => None,
        })
        .chain(std::iter::once(&few))
        .collect::<Vec<&RoaringBitmap>>()
        .union();
    KeyEntry {
        // Already in order: the map is built without searching.
        values: values.into_iter().collect(),
        all,
    }
}

/// The first 16 bytes of `s` as a big-endian number, zero-padded: when two prefixes differ
/// they order as the texts do (a shorter text padded with zeros never passes one it is a
/// prefix of), when they are equal the texts decide.
fn prefix(s: &str) -> u128 {
    let mut bytes = [0u8; 16];
    let n = s.len().min(16);
    bytes[..n].copy_from_slice(&s.as_bytes()[..n]);
    u128::from_be_bytes(bytes)
}

/// `i` moved by `by`.
fn moved(i: u32, by: i64) -> u32 {
    u32::try_from(i64::from(i) + by).unwrap_or(u32::MAX)
}

/// Moves the ids of `ids` from `shift`'s first bound on as `shift` says (which keeps them
/// above every id below it and ascending: the ids a splice removed are gone first).
///
/// Moved a run of consecutive ids at a time: the objects of one file are consecutive and
/// often share their labels, so most bitmaps above an edit are a few runs (a key nearly
/// every object carries is one or two), where moving id by id decoded and re-encoded every
/// id above the edit.
fn shift_above(ids: &mut RoaringBitmap, shift: &Shift<'_>, runs: &mut Vec<(u32, u32)>) {
    let from = shift.from();
    if ids.max().is_none_or(|m| m < from) {
        return;
    }
    runs.clear();
    let mut iter = ids.range(from..);
    while let Some(r) = iter.next_range() {
        // A run of consecutive ids split where the runs' gains change.
        let (mut a, b) = (*r.start(), *r.end());
        loop {
            let (last, by) = shift.segment(a);
            let end = last.min(b);
            runs.push((moved(a, by), moved(end, by)));
            if end == b {
                break;
            }
            a = end + 1;
        }
    }
    ids.remove_range(from..);
    // Ascending and above what is left: a single id is pushed at the end (no search), a
    // longer run filled as a range.
    for &(a, b) in runs.iter() {
        if a != b || ids.try_push(a).is_err() {
            ids.insert_range(a..=b);
        }
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

    fn summary(idx: &LabelIndex) -> Vec<(String, String, Vec<u32>)> {
        idx.keys
            .iter()
            .flat_map(|(k, e)| {
                assert_eq!(
                    e.all,
                    e.values
                        .values()
                        .fold(RoaringBitmap::new(), |a, b| a | b.to_bitmap())
                );
                e.values
                    .iter()
                    .map(|(v, ids)| (k.to_string(), v.to_string(), ids.iter().collect()))
            })
            .collect()
    }

    #[test]
    fn a_build_over_several_runs_equals_one_object_at_a_time() {
        // More objects than one parallel run holds, labels spread over the runs' borders.
        let text: String = (0..20_000)
            .map(|i| {
                format!(
                    "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, labels: {{app: a{}, tier: t{}, k{}: v, long: {}{}}}}}\n---\n",
                    i % 7,
                    i % 3,
                    i % 5,
                    // Too long to be interned: one allocation per object, equal texts at
                    // many addresses, interleaved within a run.
                    "x".repeat(100),
                    i % 2
                )
            })
            .collect();
        let objs = parse_text(&Arc::from(Path::new("x.yaml")), &text).objects;
        assert_eq!(objs.len(), 20_000);
        let mut one_by_one = LabelIndex::default();
        for (i, o) in (0u32..).zip(&objs) {
            one_by_one.splice(i, &[], std::slice::from_ref(o));
        }
        let built = LabelIndex::build(&objs);
        assert_eq!(summary(&built), summary(&one_by_one));
        assert_eq!(built, one_by_one);
        assert_eq!(
            built.values("app").iter().map(|(_, n)| n).sum::<u64>(),
            20_000
        );
    }

    #[test]
    fn replace_equals_a_rebuild() {
        let before = objects();
        let text = "\
apiVersion: v1\nkind: Pod\nmetadata: {name: b, labels: {app: web, new: x}}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: c, labels: {tier: be}}\n";
        let edited = parse_text(&Arc::from(Path::new("y.yaml")), text).objects;
        let mut after = before.clone();
        after.splice(1..3, edited.clone());
        let mut idx = LabelIndex::build(&before);
        assert!(idx.replace(1, &before[1..3], &edited));
        assert_eq!(summary(&idx), summary(&LabelIndex::build(&after)));
        // `app=db` had one object: its value is gone, not left empty.
        assert!(idx.values("app").iter().all(|(v, _)| *v != "db"));
        assert!(!idx.replace(0, &before[..1], &edited));
    }

    #[test]
    fn splice_of_any_length_equals_a_rebuild() {
        let before = objects();
        let text = "\
apiVersion: v1\nkind: Pod\nmetadata: {name: n, labels: {app: web, new: x}}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: m, labels: {tier: be}}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: o, labels: {app: db}}\n";
        let three = parse_text(&Arc::from(Path::new("y.yaml")), text).objects;
        // Every run of `before` replaced by every prefix of `three`: shorter, equal, longer.
        for at in 0..=before.len() {
            for end in at..=before.len() {
                for n in 0..=three.len() {
                    let mut after = before.clone();
                    after.splice(at..end, three[..n].iter().cloned());
                    let mut idx = LabelIndex::build(&before);
                    idx.splice(at as u32, &before[at..end], &three[..n]);
                    let label = format!("{at}..{end} ← {n}");
                    assert_eq!(
                        summary(&idx),
                        summary(&LabelIndex::build(&after)),
                        "{label}"
                    );
                    assert_eq!(idx.len(), after.len() as u32, "{label}");
                }
            }
        }
    }

    proptest::proptest! {
        /// Ordering by prefix, then text, is ordering by text (texts around 16 bytes,
        /// with NULs, sharing prefixes).
        #[test]
        fn prefix_then_text_orders_as_text(
            mut texts in proptest::collection::vec("(ab|\\x00|a){0,10}[a-c\\x00]{0,3}", 0..40)
        ) {
            let mut by_prefix = texts.clone();
            by_prefix.sort_by(|a, b| prefix(a).cmp(&prefix(b)).then_with(|| a.cmp(b)));
            texts.sort();
            proptest::prop_assert_eq!(by_prefix, texts);
        }
    }

    proptest::proptest! {
        /// Taking the ids a block at a time gives every id once, ascending: in array,
        /// bitmap and run containers, across block and container boundaries.
        #[test]
        fn for_each_id_visits_every_id_in_order(
            runs in proptest::collection::vec((0u32..300_000, 0u32..140_000), 0..8),
            sparse in proptest::collection::vec(0u32..300_000, 0..2_000),
            top in proptest::option::of(0u32..70_000),
            optimize: bool,
        ) {
            let mut ids = RoaringBitmap::new();
            for (a, len) in runs {
                ids.insert_range(a..a.saturating_add(len));
            }
            ids.extend(sparse);
            if let Some(len) = top {
                // Up to the largest id: the last range, full or not.
                ids.insert_range(u32::MAX - len..=u32::MAX);
            }
            if optimize {
                ids.optimize();
            }
            let mut got = Vec::new();
            for_each_id(&ids, |i| got.push(i));
            proptest::prop_assert_eq!(got, ids.iter().collect::<Vec<_>>());
        }
    }

    proptest::proptest! {
        /// Runs moved a range at a time (across container boundaries, dense and sparse,
        /// up and down) give the ids moved one by one.
        #[test]
        fn shifting_runs_equals_shifting_ids(
            runs in proptest::collection::vec((0u32..300_000, 0u32..70_000), 0..12),
            sparse in proptest::collection::vec(0u32..300_000, 0..200),
            from in 0u32..300_000,
            more in 0u32..70_000,
            less in 0u32..70_000,
        ) {
            let mut ids = RoaringBitmap::new();
            for (a, len) in runs {
                ids.insert_range(a..a.saturating_add(len));
            }
            ids.extend(sparse);
            // Ids in `from - less..from` are gone before a splice shifts (its removed run).
            let at = from.saturating_sub(less);
            ids.remove_range(at..from);
            let less = from - at;
            let shifted = |i: u32| i - less + more;
            let want: RoaringBitmap = ids
                .iter()
                .map(|i| if i >= from { shifted(i) } else { i })
                .collect();
            let mut got = ids.clone();
            let shift = Shift::new(Vec::new(), vec![(from, i64::from(more) - i64::from(less))]);
            shift_above(&mut got, &shift, &mut Vec::new());
            proptest::prop_assert_eq!(got.len(), want.len());
            proptest::prop_assert!(got.iter().eq(want.iter()));
            proptest::prop_assert_eq!(got, want);
        }
    }

    /// Pods `p{i}` with labels drawn from `labels` (key, value; a value per object for
    /// key `u`).
    fn pods(first: usize, labels: &[Vec<(u8, u8)>]) -> Vec<Object> {
        let text: String = labels
            .iter()
            .enumerate()
            .map(|(i, ls)| {
                let ls: Vec<String> = ls
                    .iter()
                    .map(|&(k, v)| match k {
                        0 => format!("u: v{}", first + i),
                        k => format!("k{k}: v{v}"),
                    })
                    .collect();
                format!(
                    "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{}, labels: {{{}}}}}\n---\n",
                    first + i,
                    ls.join(", ")
                )
            })
            .collect();
        parse_text(&Arc::from(Path::new("p.yaml")), &text).objects
    }

    /// A splice's shift shared by two threads while the caller waits.
    fn on_two_threads(shift: &Shift<'_>) {
        std::thread::scope(|s| {
            s.spawn(|| shift.work());
            s.spawn(|| shift.work());
        })
    }

    proptest::proptest! {
        /// Splices one after another (any run replaced by any number of objects, labels
        /// shared, unique, dropped or new) equal a build of the objects after them.
        #[test]
        fn splices_in_a_row_equal_a_build(
            before in proptest::collection::vec(
                proptest::collection::vec((0u8..4, 0u8..3), 0..4), 0..40),
            edits in proptest::collection::vec((0usize..40, 0usize..6, proptest::collection::vec(
                proptest::collection::vec((0u8..5, 0u8..4), 0..4), 0..6)), 1..4),
        ) {
            let mut objects = pods(0, &before);
            let mut idx = LabelIndex::build(&objects);
            for (k, (at, len, added)) in edits.into_iter().enumerate() {
                let at = at.min(objects.len());
                let end = (at + len).min(objects.len());
                let added = pods(1000 * (k + 1), &added);
                let removed: Vec<Object> = objects.splice(at..end, added.iter().cloned()).collect();
                // On every core; shared by two threads while the caller waits; or left
                // to the splice itself.
                match k % 3 {
                    0 => idx.splice(at as u32, &removed, &added),
                    1 => idx.splice_sharing(at as u32, &removed, &added, on_two_threads),
                    _ => idx.splice_sharing(at as u32, &removed, &added, |_| ()),
                }
                let built = LabelIndex::build(&objects);
                proptest::prop_assert_eq!(summary(&idx), summary(&built));
                proptest::prop_assert_eq!(&idx, &built);
            }
        }
    }

    proptest::proptest! {
        /// Several runs spliced at once (shared by two threads, or left to the splice)
        /// equal the same runs spliced one after another, and a build.
        #[test]
        fn runs_spliced_at_once_equal_splices_in_a_row(
            before in proptest::collection::vec(
                proptest::collection::vec((0u8..4, 0u8..3), 0..4), 0..60),
            edits in proptest::collection::vec((0usize..8, 0usize..5, proptest::collection::vec(
                proptest::collection::vec((0u8..5, 0u8..4), 0..4), 0..5)), 1..5),
            shared in proptest::bool::ANY,
        ) {
            let objects = pods(0, &before);
            // Runs at ascending old positions, each after a gap from the one before.
            let mut runs: Vec<(usize, Vec<Object>, Vec<Object>)> = Vec::new();
            let mut at = 0;
            for (k, (gap, len, added)) in edits.into_iter().enumerate() {
                at += gap;
                let end = (at + len).min(objects.len());
                if at > end {
                    break;
                }
                runs.push((at, objects[at..end].to_vec(), pods(1000 * (k + 1), &added)));
                at = end;
            }
            let mut after = objects.clone();
            let mut in_a_row = LabelIndex::build(&objects);
            for (at, removed, added) in runs.iter().rev() {
                after.splice(*at..at + removed.len(), added.iter().cloned());
                in_a_row.splice(*at as u32, removed, added);
            }
            let mut at_once = LabelIndex::build(&objects);
            let spliced: Vec<Run<'_>> = runs
                .iter()
                .map(|(at, removed, added)| Run { at: *at as u32, removed, added })
                .collect();
            if shared {
                at_once.splice_runs_sharing(&spliced, on_two_threads);
            } else {
                at_once.splice_runs_sharing(&spliced, |_| ());
            }
            let built = LabelIndex::build(&after);
            proptest::prop_assert_eq!(&in_a_row, &built);
            proptest::prop_assert_eq!(summary(&at_once), summary(&built));
            proptest::prop_assert_eq!(&at_once, &built);
        }
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
