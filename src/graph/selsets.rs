//! Selector edges stored as shared matched sets instead of one pair per edge.
//!
//! Many objects often carry the same selector in one namespace (5,000 Services selecting
//! `app=web`): as pairs that is N × M edges, as sets it is one set of M objects and N
//! selections pointing at it. Each selection is one selector field of one object: the set it
//! matched (ascending object positions, shared by every equal selection), the field it came
//! from, and the few members it does not select after all (the Pods a workload already
//! owns). Edges are produced on demand, in the order a list of pairs grouped by selecting
//! object would hold them, so callers see the same edges as before.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::setkeys::SetKey;
use super::{Edge, EdgeKind, EdgeName};

mod splice;
#[cfg(test)]
pub(super) use splice::SPLICES;

/// One selector field of one object and what it matched.
#[derive(Clone, Debug)]
pub(super) struct Selection {
    /// The selecting object.
    pub from: usize,
    pub via: &'static str,
    /// What it matched: a key of [`Selections::keys`].
    pub key: u32,
    /// Members of the key's set this selection does not select, ascending.
    pub except: Vec<u32>,
}

/// A matched set's members, ascending: inline up to four (most sets), so that a pass over
/// every set (a patch moving positions) reads one array instead of a pointer per set.
pub(super) type Members = SmallVec<[u32; 4]>;

/// A matched set's key (equal selectors of one namespace share one) and its set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Keyed {
    pub key: Arc<SetKey>,
    /// The set, in [`Selections::sets`].
    pub set: u32,
    /// The key's probe and hash, kept here too: a patch reads them for every key, and
    /// reading them through `key` costs a cache miss per key.
    pub probe: u64,
    pub hash: u64,
}

impl Keyed {
    pub fn new(key: Arc<SetKey>, set: u32) -> Keyed {
        Keyed {
            probe: key.probe(),
            hash: key.hash(),
            key,
            set,
        }
    }

    /// The same key, with set `set`.
    pub fn with_set(&self, set: u32) -> Keyed {
        Keyed {
            key: Arc::clone(&self.key),
            set,
            probe: self.probe,
            hash: self.hash,
        }
    }
}

/// Selections, the keys they matched and the keys' sets (each ascending, shared by id
/// between equal keys): what computing a graph yields, before [`SelectorEdges::build`]
/// indexes it.
#[derive(Clone, Debug, Default)]
pub(super) struct Selections {
    pub list: Vec<Selection>,
    pub sets: Vec<Members>,
    pub keys: Vec<Keyed>,
    /// How many Nodes the inventory holds (a Pod that fits none is reported with it).
    pub nodes: usize,
}

impl Selections {
    /// Adds a matched set (ascending); its id.
    pub fn add_set(&mut self, members: impl Into<Members>) -> u32 {
        self.sets.push(members.into());
        (self.sets.len() - 1) as u32
    }

    /// Adds a key whose members are set `set`; its id.
    pub fn add_key(&mut self, key: SetKey, set: u32) -> u32 {
        self.keys.push(Keyed::new(Arc::new(key), set));
        (self.keys.len() - 1) as u32
    }

    /// The members of set `id`.
    pub fn set(&self, id: u32) -> &[u32] {
        self.sets.get(id as usize).map_or(&[], |s| s.as_slice())
    }

    /// The members of key `id`'s set.
    pub fn key_set(&self, id: u32) -> &[u32] {
        self.keys.get(id as usize).map_or(&[], |k| self.set(k.set))
    }

    /// Object `from` selects key `key`'s set but `except` through field `via`.
    pub fn select(&mut self, from: usize, via: &'static str, key: u32, except: Vec<u32>) {
        self.list.push(Selection {
            from,
            via,
            key,
            except,
        });
    }

    /// Every set's members moved by `member` (monotonic, so sets stay ascending; members
    /// without a position are left out), in place. Whether each set lost a member.
    pub fn move_sets(&mut self, member: impl Fn(usize) -> Option<usize>) -> Vec<bool> {
        self.sets
            .iter_mut()
            .map(|set| {
                let before = set.len();
                let kept = move_all(set, &member);
                set.truncate(kept);
                set.len() != before
            })
            .collect()
    }

    /// [`Selections::move_sets`] for the sets `ids` alone (the others keep every member where
    /// it is).
    pub fn move_some_sets(
        &mut self,
        ids: &[u32],
        member: impl Fn(usize) -> Option<usize>,
    ) -> Vec<bool> {
        let mut lost = vec![false; self.sets.len()];
        for &id in ids {
            if let Some(set) = self.sets.get_mut(id as usize) {
                let before = set.len();
                let kept = move_all(set, &member);
                set.truncate(kept);
                lost[id as usize] = set.len() != before;
            }
        }
        lost
    }

    /// Keeps the selections whose selecting object `from` moves to (`None`: left out),
    /// their exceptions moved by `member` as in [`Selections::move_sets`].
    pub fn move_selections(
        &mut self,
        from: impl Fn(usize) -> Option<usize>,
        member: impl Fn(usize) -> Option<usize>,
    ) {
        self.list.retain_mut(|s| {
            let Some(f) = from(s.from) else {
                return false;
            };
            s.from = f;
            let kept = move_all(&mut s.except, &member);
            s.except.truncate(kept);
            true
        });
    }
}

/// `ids` moved by `member`, those without a position left out (at the front); how many
/// are left.
fn move_all(ids: &mut [u32], member: &impl Fn(usize) -> Option<usize>) -> usize {
    let mut kept = 0;
    for k in 0..ids.len() {
        if let Some(n) = member(ids[k] as usize) {
            ids[kept] = n as u32;
            kept += 1;
        }
    }
    kept
}

/// One selection, its key and set referred to by id.
#[derive(Clone, Debug)]
struct Seg {
    from: u32,
    via: EdgeName,
    key: u32,
    /// The key's set (kept here too: iterating edges reads it for every selection).
    set: u32,
    /// Its exceptions: where they start in [`SelectorEdges::except`], and how many.
    except: (u32, u32),
}

/// Every selection of a graph, with its sets shared and indexed both ways.
#[derive(Clone, Debug, Default)]
pub(super) struct SelectorEdges {
    /// `segs[seg_offsets[i]..seg_offsets[i + 1]]`: object `i`'s selections, as found.
    seg_offsets: Vec<u32>,
    segs: Vec<Seg>,
    /// The keys the selections matched, in order of first use, and their sets.
    keys: Vec<Keyed>,
    /// Distinct matched sets (equal contents are stored once).
    sets: Vec<Members>,
    /// `users[user_offsets[s]..user_offsets[s + 1]]`: the selections of set `s`, ascending.
    user_offsets: Vec<u32>,
    users: Vec<u32>,
    /// `in_sets[in_offsets[t]..in_offsets[t + 1]]`: the sets holding object `t`, ascending.
    in_offsets: Vec<u32>,
    in_sets: Vec<u32>,
    /// How many Nodes the inventory holds.
    nodes: usize,
    /// Every selection's exceptions, one after another (a patch appends those of the
    /// selections it adds and leaves the replaced ones' unused until the list is written
    /// again): one array, so that moving positions is one pass over it, not a visit to a
    /// box per selection.
    except: Vec<u32>,
    /// The length of `except` when it was last written whole.
    except_written: usize,
    /// How many keys hold each set: a patch keeps every number (see `selsets/splice.rs`),
    /// and empties a set no key holds any more.
    key_refs: Vec<u32>,
    /// How many keys and sets there were when they were last numbered whole (a build);
    /// a patch numbers them again when they have grown well past that.
    numbered: (usize, usize),
}

impl PartialEq for SelectorEdges {
    /// The same selections, keys and sets as a build gives: a patch keeps every key's and
    /// set's number (dropped ones stay, emptied; new ones are appended), so both are
    /// numbered as a build numbers them first (every key and set in order of first use,
    /// equal sets stored once) and compared whole; and each is consistent (its indexes and
    /// key counts are what its selections and sets give).
    fn eq(&self, other: &SelectorEdges) -> bool {
        self.consistent().is_ok()
            && other.consistent().is_ok()
            && self.canonical().same_numbering(&other.canonical())
    }
}

impl Eq for SelectorEdges {}

/// Appends `ids` to `except`: the span a [`Seg`] keeps.
fn push_except(except: &mut Vec<u32>, ids: &[u32]) -> (u32, u32) {
    let at = u32::try_from(except.len()).unwrap_or(u32::MAX);
    except.extend_from_slice(ids);
    (at, u32::try_from(ids.len()).unwrap_or(u32::MAX))
}

/// `items[offsets[i]..offsets[i + 1]]`, empty when `i` is out of range.
fn run<'a, T>(offsets: &[u32], items: &'a [T], i: usize) -> &'a [T] {
    match (offsets.get(i), offsets.get(i + 1)) {
        (Some(&a), Some(&b)) => &items[a as usize..b as usize],
        _ => &[],
    }
}

/// Prefix sums of `counts` (one more entry than `counts`).
fn offsets(counts: impl Iterator<Item = usize>) -> Vec<u32> {
    let mut out = vec![0u32];
    let mut sum = 0usize;
    for c in counts {
        sum += c;
        out.push(u32::try_from(sum).unwrap_or(u32::MAX));
    }
    out
}

const UNSEEN: u32 = u32::MAX;

impl SelectorEdges {
    /// Indexes the selections of `n` objects. Selections are ordered by selecting object
    /// (stable: the order they were found in stays), keys are numbered in order of first
    /// use (unused ones dropped), and sets of equal contents are merged and numbered in
    /// order of first use, so equal selections give equal results whether they come from a
    /// build or a patch. A selection matching nothing is kept (it selects no object): a
    /// patch finds through it who to tell when its key comes to match something.
    pub fn build(n: usize, selections: Selections) -> SelectorEdges {
        let Selections {
            mut list,
            mut sets,
            keys: in_keys,
            nodes,
        } = selections;
        list.sort_by_key(|s| s.from);
        // Input key id → stored key id; input set id → stored set id; stored → input set.
        let mut key_ids = vec![UNSEEN; in_keys.len()];
        let mut keys: Vec<Keyed> = Vec::new();
        let mut stored = vec![UNSEEN; sets.len()];
        let mut source: Vec<u32> = Vec::new();
        {
            let mut by_content: FxHashMap<&[u32], u32> = FxHashMap::default();
            for s in &list {
                let Some(k) = key_ids.get_mut(s.key as usize) else {
                    continue;
                };
                if *k != UNSEEN {
                    continue;
                }
                let input = &in_keys[s.key as usize];
                let slot = &mut stored[input.set as usize];
                if *slot == UNSEEN {
                    *slot = *by_content
                        .entry(sets[input.set as usize].as_slice())
                        .or_insert_with(|| {
                            source.push(input.set);
                            (source.len() - 1) as u32
                        });
                }
                *k = keys.len() as u32;
                keys.push(input.with_set(*slot));
            }
        }
        let sets: Vec<Members> = source
            .iter()
            .map(|&i| std::mem::take(&mut sets[i as usize]))
            .collect();
        let mut except: Vec<u32> = Vec::new();
        let segs: Vec<Seg> = list
            .into_iter()
            .filter_map(|s| {
                let key = *key_ids.get(s.key as usize)?;
                Some(Seg {
                    from: s.from as u32,
                    via: EdgeName::of(s.via),
                    key,
                    set: keys[key as usize].set,
                    except: push_except(&mut except, &s.except),
                })
            })
            .collect();
        let seg_offsets = offsets(count_by(n, segs.iter().map(|s| s.from as usize)).into_iter());
        let (user_offsets, users) = users_index(&segs, sets.len());
        let (in_offsets, in_sets) = members_index(&sets, n);
        let key_refs = key_counts(&keys, sets.len());
        SelectorEdges {
            seg_offsets,
            segs,
            numbered: (keys.len(), sets.len()),
            keys,
            sets,
            user_offsets,
            users,
            in_offsets,
            in_sets,
            nodes,
            except_written: except.len(),
            except,
            key_refs,
        }
    }

    /// These selections numbered as a build numbers them.
    fn canonical(&self) -> SelectorEdges {
        let n = self.seg_offsets.len().saturating_sub(1);
        SelectorEdges::build(n, self.clone().into_selections())
    }

    /// Equal selections, keys, sets and indexes, number for number; exceptions compared by
    /// content, wherever they stand in `except`.
    fn same_numbering(&self, other: &SelectorEdges) -> bool {
        self.seg_offsets == other.seg_offsets
            && self.keys == other.keys
            && self.sets == other.sets
            && self.user_offsets == other.user_offsets
            && self.users == other.users
            && self.in_offsets == other.in_offsets
            && self.in_sets == other.in_sets
            && self.key_refs == other.key_refs
            && self.nodes == other.nodes
            && self.segs.len() == other.segs.len()
            && self.segs.iter().zip(&other.segs).all(|(a, b)| {
                (a.from, a.via, a.key, a.set) == (b.from, b.via, b.key, b.set)
                    && self.except_of(a) == other.except_of(b)
            })
    }

    /// Whether what is kept alongside the selections and sets is what they give: each
    /// selection's set is its key's, the selection index by set, the set index by object
    /// and how many keys hold each set are those counted again, and a set no key holds is
    /// empty. The first difference when not.
    fn consistent(&self) -> Result<(), String> {
        let n = self.seg_offsets.len().saturating_sub(1);
        if let Some(s) = self
            .segs
            .iter()
            .find(|s| self.keys.get(s.key as usize).map(|k| k.set) != Some(s.set))
        {
            return Err(format!("selection {s:?} has another set than its key"));
        }
        let refs = key_counts(&self.keys, self.sets.len());
        if refs != self.key_refs {
            return Err(format!("key counts {:?}, counted {refs:?}", self.key_refs));
        }
        if let Some(s) = (0..self.sets.len()).find(|&s| refs[s] == 0 && !self.sets[s].is_empty()) {
            return Err(format!("set {s} is held by no key but not emptied"));
        }
        let (user_offsets, users) = users_index(&self.segs, self.sets.len());
        if (&user_offsets, &users) != (&self.user_offsets, &self.users) {
            return Err("the selection index by set differs".into());
        }
        let (in_offsets, in_sets) = members_index(&self.sets, n);
        if (&in_offsets, &in_sets) != (&self.in_offsets, &self.in_sets) {
            return Err("the set index by object differs".into());
        }
        Ok(())
    }

    /// The exceptions of `seg`, ascending.
    fn except_of(&self, seg: &Seg) -> &[u32] {
        let (at, n) = (seg.except.0 as usize, seg.except.1 as usize);
        self.except.get(at..at + n).unwrap_or(&[])
    }

    /// Whether `seg` selects member `t` of its set (never itself: a selector does not link
    /// an object to itself).
    fn picks(&self, seg: &Seg, t: u32) -> bool {
        t != seg.from && self.except_of(seg).binary_search(&t).is_err()
    }

    /// Writes `except` again, in the order of the selections, when what a patch left
    /// unused in it is as long as what was written last (each edit appends a few).
    fn compact_except(&mut self) {
        // (Tests: whenever a patch appended some, so that it is written again often.)
        let limit = if cfg!(test) {
            self.except_written
        } else {
            2 * self.except_written.max(1024)
        };
        if self.except.len() <= limit {
            return;
        }
        #[cfg(test)]
        splice::count_splice(2);
        let mut except = Vec::with_capacity(self.except_written + self.except_written / 8);
        for seg in &mut self.segs {
            let (at, n) = (seg.except.0 as usize, seg.except.1 as usize);
            seg.except = push_except(&mut except, self.except.get(at..at + n).unwrap_or(&[]));
        }
        self.except_written = except.len();
        self.except = except;
    }

    /// Selector edges from `obj` to what it selects, grouped by selection as found.
    pub fn selects(&self, obj: usize) -> impl Iterator<Item = Edge> + '_ {
        run(&self.seg_offsets, &self.segs, obj)
            .iter()
            .flat_map(move |seg| self.edges_of(seg).map(move |to| edge(seg, to)))
    }

    /// Selector edges from the objects that select `obj`, by selecting object.
    pub fn selected_by(&self, obj: usize) -> impl Iterator<Item = Edge> + '_ {
        let sets = run(&self.in_offsets, &self.in_sets, obj);
        // Selections of one set are ascending; of several, merged.
        let segs = match sets {
            [one] => SegIds::One(run(&self.user_offsets, &self.users, *one as usize).iter()),
            _ => {
                let mut all: Vec<u32> = sets
                    .iter()
                    .flat_map(|&s| run(&self.user_offsets, &self.users, s as usize))
                    .copied()
                    .collect();
                all.sort_unstable();
                SegIds::Many(all.into_iter())
            }
        };
        let t = obj as u32;
        segs.map(move |i| &self.segs[i as usize])
            .filter(move |seg| self.picks(seg, t))
            .map(move |seg| edge(seg, obj))
    }

    /// Every selection, key and set, as found (for a patch to carry over).
    pub fn into_selections(self) -> Selections {
        let list = self
            .segs
            .iter()
            .map(|seg| Selection {
                from: seg.from as usize,
                via: seg.via.as_str(),
                key: seg.key,
                except: self.except_of(seg).to_vec(),
            })
            .collect();
        Selections {
            list,
            sets: self.sets,
            keys: self.keys,
            nodes: self.nodes,
        }
    }

    /// The keys the selections of `objects` matched, with their sets, as selections of no
    /// object (a patch matches those objects' fields again against them), and each key's id
    /// here by its id there.
    pub fn known(&self, objects: &[usize]) -> (Selections, Vec<u32>) {
        let mut sel = Selections {
            nodes: self.nodes,
            ..Selections::default()
        };
        let mut ids: Vec<u32> = Vec::new();
        let (mut local_key, mut local_set): (FxHashMap<u32, u32>, FxHashMap<u32, u32>) =
            Default::default();
        for &i in objects {
            for seg in run(&self.seg_offsets, &self.segs, i) {
                if local_key.contains_key(&seg.key) {
                    continue;
                }
                let set = *local_set
                    .entry(seg.set)
                    .or_insert_with(|| sel.add_set(self.sets[seg.set as usize].clone()));
                sel.keys.push(self.keys[seg.key as usize].with_set(set));
                local_key.insert(seg.key, (sel.keys.len() - 1) as u32);
                ids.push(seg.key);
            }
        }
        (sel, ids)
    }

    /// Whether object `i`'s selections are `new` (as found, all from `i`), whose keys are
    /// `ids[key]` here.
    pub fn same_as(&self, i: usize, new: &[Selection], ids: &[u32]) -> bool {
        let old = run(&self.seg_offsets, &self.segs, i);
        old.len() == new.len()
            && old.iter().zip(new).all(|(o, n)| {
                n.from == i
                    && o.via == n.via
                    && ids.get(n.key as usize) == Some(&o.key)
                    && *self.except_of(o) == *n.except
            })
    }

    /// How many distinct sets are stored.
    #[cfg(test)]
    pub fn set_count(&self) -> usize {
        self.sets.len()
    }

    /// The objects `seg` selects.
    fn edges_of<'a>(&'a self, seg: &'a Seg) -> impl Iterator<Item = usize> + 'a {
        self.sets[seg.set as usize]
            .iter()
            .filter(move |&&t| self.picks(seg, t))
            .map(|&t| t as usize)
    }
}

fn edge(seg: &Seg, to: usize) -> Edge {
    Edge {
        from: seg.from,
        to: to as u32,
        kind: EdgeKind::Selector { via: seg.via },
    }
}

/// Selection ids, one set's (a slice) or several sets' merged.
enum SegIds<'a> {
    One(std::slice::Iter<'a, u32>),
    Many(std::vec::IntoIter<u32>),
}

impl Iterator for SegIds<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            SegIds::One(it) => it.next().copied(),
            SegIds::Many(it) => it.next(),
        }
    }
}

/// The selections of each of `sets` sets, ascending: offsets and selection ids.
fn users_index(segs: &[Seg], sets: usize) -> (Vec<u32>, Vec<u32>) {
    let user_offsets = offsets(count_by(sets, segs.iter().map(|s| s.set as usize)).into_iter());
    let users = fill(
        &user_offsets,
        segs.iter()
            .enumerate()
            .map(|(i, s)| (s.set as usize, i as u32)),
    );
    (user_offsets, users)
}

/// The sets holding each of `n` objects, ascending: offsets and set ids.
fn members_index(sets: &[Members], n: usize) -> (Vec<u32>, Vec<u32>) {
    let member_counts = count_by(n, sets.iter().flat_map(|s| s.iter().map(|&t| t as usize)));
    let in_offsets = offsets(member_counts.into_iter());
    let in_sets = fill(
        &in_offsets,
        sets.iter()
            .enumerate()
            .flat_map(|(id, s)| s.iter().map(move |&t| (t as usize, id as u32))),
    );
    (in_offsets, in_sets)
}

/// How many of `keys` hold each of `sets` sets.
fn key_counts(keys: &[Keyed], sets: usize) -> Vec<u32> {
    count_by(sets, keys.iter().map(|k| k.set as usize))
        .into_iter()
        .map(|c| u32::try_from(c).unwrap_or(u32::MAX))
        .collect()
}

/// How many of `keys` fall on each of `0..n` (keys out of range are not counted).
fn count_by(n: usize, keys: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut counts = vec![0usize; n];
    for k in keys {
        if let Some(c) = counts.get_mut(k) {
            *c += 1;
        }
    }
    counts
}

/// Each `(key, value)` placed into key's run of `offsets`, in order (a counting sort that
/// keeps the order within a run); keys out of range are left out, as in [`count_by`].
fn fill(offsets: &[u32], items: impl Iterator<Item = (usize, u32)>) -> Vec<u32> {
    let total = offsets.last().copied().unwrap_or(0) as usize;
    let mut out = vec![0u32; total];
    let runs = offsets.len().saturating_sub(1);
    let mut next: Vec<u32> = offsets[..runs].to_vec();
    for (k, v) in items {
        if let Some(slot) = next.get_mut(k) {
            out[*slot as usize] = v;
            *slot += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The edges `selections` stand for as pairs, the way they were stored before sets: by
    /// selecting object (stable), each selection's members in order.
    fn pairs(sel: &Selections) -> Vec<Edge> {
        let mut list = sel.list.clone();
        list.sort_by_key(|s| s.from);
        let mut out = Vec::new();
        for s in &list {
            for &t in sel.key_set(s.key) {
                if t as usize != s.from && !s.except.contains(&t) {
                    let via = EdgeName::of(s.via);
                    out.push(Edge::new(s.from, t as usize, EdgeKind::Selector { via }));
                }
            }
        }
        out
    }

    /// A new key whose members are set `set`.
    fn key(sel: &mut Selections, set: u32) -> u32 {
        let n = sel.keys.len();
        sel.add_key(SetKey::unique(n), set)
    }

    /// Selections over `n` objects: a few shared sets, copies of them (equal contents,
    /// other ids) and singletons, with exceptions and self-members.
    fn selections(n: usize, picks: &[(usize, usize, usize, u8)]) -> Selections {
        let mut sel = Selections::default();
        for k in 0..3u32 {
            sel.add_set(
                (0..n as u32)
                    .filter(|t| (t + k) % (k + 2) == 0)
                    .collect::<Members>(),
            );
        }
        for &(from, set, except, how) in picks {
            let id = match how % 3 {
                0 => (set % 3) as u32,
                1 => sel.add_set(sel.set((set % 3) as u32).to_vec()),
                _ => sel.add_set(vec![(set % n) as u32]),
            };
            let except: Vec<u32> = sel
                .set(id)
                .iter()
                .copied()
                .filter(|t| *t as usize % 5 == except % 5)
                .collect();
            let via = if how % 2 == 0 { "a" } else { "b" };
            let key = key(&mut sel, id);
            sel.select(from % n, via, key, except);
        }
        sel
    }

    proptest! {
        #[test]
        fn sets_give_the_same_edges_as_pairs(
            picks in proptest::collection::vec((0usize..12, 0usize..12, 0usize..12, any::<u8>()), 0..24),
        ) {
            let n = 12;
            let sel = selections(n, &picks);
            let expected = pairs(&sel);
            let edges = SelectorEdges::build(n, sel.clone());
            let selects: Vec<Edge> = (0..n).flat_map(|i| edges.selects(i)).collect();
            prop_assert_eq!(&selects, &expected);
            for t in 0..n {
                let by: Vec<Edge> = edges.selected_by(t).collect();
                let want: Vec<Edge> = expected.iter().filter(|e| e.to_ix() == t).copied().collect();
                prop_assert_eq!(by, want, "selected_by({})", t);
            }
            prop_assert!(edges.selects(n).next().is_none() && edges.selected_by(n).next().is_none());
            // Carried over unchanged (a patch that moves nothing), the same index.
            let mut again = edges.clone().into_selections();
            again.move_selections(Some, Some);
            prop_assert!(again.move_sets(Some).iter().all(|lost| !lost));
            prop_assert_eq!(SelectorEdges::build(n, again), edges);
        }
    }

    #[test]
    fn equal_sets_are_stored_once() {
        let mut sel = Selections::default();
        let set = sel.add_set(vec![1, 2, 3]);
        let copy = sel.add_set(vec![1, 2, 3]);
        let empty = sel.add_set(Vec::new());
        let unused = sel.add_set(vec![4]);
        let (k_set, k_copy, k_empty) = (
            key(&mut sel, set),
            key(&mut sel, copy),
            key(&mut sel, empty),
        );
        key(&mut sel, unused);
        sel.select(0, "a", k_set, vec![]);
        sel.select(4, "a", k_copy, vec![2]);
        sel.select(5, "b", k_set, vec![]);
        sel.select(6, "b", k_empty, vec![]);
        let edges = SelectorEdges::build(7, sel);
        let sets: Vec<&[u32]> = edges.sets.iter().map(|s| s.as_slice()).collect();
        assert_eq!(sets, [&[1, 2, 3][..], &[]]);
        assert_eq!(edges.keys.len(), 3, "a key no selection uses is dropped");
        assert_eq!(edges.segs.len(), 4, "a selection matching nothing is kept");
        assert!(edges.selects(6).next().is_none());
        let from: Vec<usize> = edges.selected_by(2).map(|e| e.from_ix()).collect();
        assert_eq!(from, vec![0, 5]);
    }

    #[test]
    fn moving_drops_what_is_gone_and_shifts_the_rest() {
        let mut sel = Selections::default();
        let set = sel.add_set(vec![1, 2, 3]);
        let kept = sel.add_set(vec![0, 1]);
        let k = key(&mut sel, set);
        sel.select(0, "a", k, vec![2]);
        sel.select(3, "a", k, vec![]);
        sel.select(4, "a", k, vec![]);
        // Object 2 removed, 3 and 4 shift down by one; 4's selection is left out.
        let member = |t| match t {
            2 => None,
            t if t > 2 => Some(t - 1),
            t => Some(t),
        };
        sel.move_selections(|f| (f != 4).then(|| if f > 2 { f - 1 } else { f }), member);
        assert_eq!(sel.move_sets(member), vec![true, false]);
        let got: Vec<(usize, Vec<u32>, Vec<u32>)> = sel
            .list
            .iter()
            .map(|s| (s.from, sel.key_set(s.key).to_vec(), s.except.clone()))
            .collect();
        assert_eq!(got, vec![(0, vec![1, 2], vec![]), (2, vec![1, 2], vec![])]);
        assert_eq!(sel.set(kept), &[0, 1]);
    }

    /// Exceptions left unused in the one array (a patch replaced their selections) change
    /// nothing a graph answers, and writing the array again drops them.
    #[test]
    fn unused_exceptions_are_dropped_when_written_again() {
        let mut sel = Selections::default();
        let set = sel.add_set(vec![1, 2, 3, 4]);
        let k = key(&mut sel, set);
        sel.select(0, "a", k, vec![2, 3]);
        sel.select(5, "a", k, vec![1]);
        let built = SelectorEdges::build(6, sel);
        let edges = |e: &SelectorEdges| (0..6).flat_map(|i| e.selects(i)).collect::<Vec<_>>();
        let mut patched = built.clone();
        // What a patch leaves: its selections' exceptions appended, the old ones unused.
        for seg in &mut patched.segs {
            let ids = patched.except[seg.except.0 as usize..][..seg.except.1 as usize].to_vec();
            patched.except.extend_from_slice(&[9, 9]);
            seg.except = push_except(&mut patched.except, &ids);
        }
        assert_eq!(patched, built);
        assert_eq!(edges(&patched), edges(&built));
        assert_eq!(patched.except.len(), 3 + 2 * 2 + 3);
        patched.compact_except();
        assert_eq!(patched.except, vec![2, 3, 1]);
        assert_eq!(patched, built);
        assert_eq!(edges(&patched), edges(&built));
        let picked: Vec<u32> = (0..6).filter(|&t| built.picks(&built.segs[0], t)).collect();
        assert_eq!(picked, vec![1, 4, 5]);
    }
}
