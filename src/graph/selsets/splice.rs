//! Selector edges patched where they are, for a change that moves no position (a file
//! edited, its object count kept): what [`SelectorEdges::build`] gives for the patched
//! selections, without hashing every set's contents again or rebuilding every index.
//!
//! A patch takes the keys and sets out ([`SelectorEdges::take_keyed`]), brings the keys'
//! sets up to date and matches the recomputed objects' fields again (as `Selections`: the
//! old sets, some changed in place, new ones appended), then [`SelectorEdges::splice`]
//! puts the recomputed objects' selections where theirs were and numbers keys and sets as
//! a build would (in order of first use, equal contents stored once). Only the changed
//! sets are compared with others (through the old sets holding their first member); the
//! per-object index of sets is rewritten only for the objects whose sets changed, unless an
//! unchanged set's number moves (then it is rebuilt, as a build does).

use rustc_hash::FxHashMap;

use super::{
    count_by, fill, offsets, push_except, run, Keyed, Seg, Selections, SelectorEdges, UNSEEN,
};
use rayon::prelude::*;

use crate::graph::{EdgeName, Resize, GAP_CHUNK};

#[cfg(test)]
thread_local! {
    /// Splices whose selection counts changed with every key keeping its number, of
    /// those the ones whose selection index was spliced (every set kept its number), and
    /// the times the exceptions were written again.
    pub(in crate::graph) static STRETCH_KEPT: std::cell::Cell<[usize; 3]> =
        const { std::cell::Cell::new([0; 3]) };
}

/// Counts one splice in [`STRETCH_KEPT`]`[which]`.
#[cfg(test)]
pub(super) fn count_kept(which: usize) {
    STRETCH_KEPT.with(|c| {
        let mut counts = c.get();
        counts[which] += 1;
        c.set(counts);
    });
}

/// How many selections before a rebuilt stretch are looked at for the keys used there.
const RECENT: usize = 4096;

/// Selections `lo..hi` replaced by `lo..new_hi`, those after moved.
#[derive(Clone)]
struct Stretch {
    lo: usize,
    hi: usize,
    new_hi: usize,
    /// The sets of the selections the stretch held before (those whose index lose them).
    old_sets: Vec<u32>,
}

impl SelectorEdges {
    /// Takes the keys and sets out for a patch (the rest stays, for [`SelectorEdges::splice`]),
    /// with the sets holding any of `positions`, ascending: those a change at `positions`
    /// can take members from.
    pub fn take_keyed(&mut self, positions: impl Iterator<Item = usize>) -> (Selections, Vec<u32>) {
        let mut holding: Vec<u32> = positions
            .flat_map(|p| run(&self.in_offsets, &self.in_sets, p))
            .copied()
            .collect();
        holding.sort_unstable();
        holding.dedup();
        let sel = Selections {
            list: Vec::new(),
            sets: std::mem::take(&mut self.sets),
            keys: std::mem::take(&mut self.keys),
            nodes: self.nodes,
        };
        (sel, holding)
    }

    /// Positions moved by `resize` (runs that change length, each patched where it
    /// stands): a gap's positions hold no selection and belong to no set; the selections and
    /// set memberships of a folded position belong to the position it folds into (a set
    /// may hold that position more than once until the patch takes the run's positions out
    /// of the sets holding them). The change is then one that moves no position, patched by
    /// [`SelectorEdges::splice`]. One pass over the selections and the sets' members; the
    /// order of selections, keys and sets, and so every number, stays.
    pub fn resize(&mut self, resize: &Resize) {
        if resize.is_empty() {
            return;
        }
        let moves = resize.moves();
        // Positions are u32 here (below `u32::MAX`, as every position of the build).
        let moved = |t: u32| moves(t as usize) as u32;
        self.segs
            .par_iter_mut()
            .with_min_len(GAP_CHUNK)
            .for_each(|seg| seg.from = moved(seg.from));
        self.except
            .par_iter_mut()
            .with_min_len(GAP_CHUNK)
            .for_each(|t| *t = moved(*t));
        self.sets.par_iter_mut().with_min_len(64).for_each(|set| {
            for t in set.iter_mut() {
                *t = moved(*t);
            }
        });
        resize.offsets(&mut self.seg_offsets);
        resize.offsets(&mut self.in_offsets);
    }

    /// The keys the selections of `objects` matched.
    pub fn keys_of(&self, objects: &[usize]) -> Vec<u32> {
        let mut ids: Vec<u32> = objects
            .iter()
            .flat_map(|&i| run(&self.seg_offsets, &self.segs, i))
            .map(|s| s.key)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The objects whose selections matched key `key`, whose set was `set`.
    pub fn users_of(&self, key: u32, set: u32) -> impl Iterator<Item = usize> + '_ {
        run(&self.user_offsets, &self.users, set as usize)
            .iter()
            .map(|&i| &self.segs[i as usize])
            .filter(move |s| s.key == key)
            .map(|s| s.from as usize)
    }

    /// `build` of this graph's selections with those of `selecting` (ascending) replaced by
    /// `merged.list` (theirs, by selecting object), over `merged`'s keys and sets: keys and
    /// sets taken out by [`SelectorEdges::take_keyed`], then brought up to date: the sets at
    /// `dirty` (ascending) changed in place, sets and keys appended; `key_sets`: each old
    /// key's set before. No position moved; `replaced` are the positions whose objects
    /// were replaced.
    pub fn splice(
        mut self,
        merged: Selections,
        selecting: &[usize],
        (dirty, key_sets): (&[u32], &[u32]),
        replaced: &[usize],
    ) -> SelectorEdges {
        let Selections {
            mut list,
            mut sets,
            keys: in_keys,
            nodes,
        } = merged;
        let n = self.seg_offsets.len().saturating_sub(1);
        let old_sets = self.user_offsets.len().saturating_sub(1);
        list.sort_by_key(|s| s.from);
        let except = &mut self.except;
        let fresh: Vec<Seg> = list
            .into_iter()
            .map(|s| Seg {
                from: s.from as u32,
                via: EdgeName::of(s.via),
                key: s.key,
                set: UNSEEN,
                except: push_except(except, &s.except),
            })
            .collect();
        let (same_keys, moved) = self.splice_segs(fresh, selecting, key_sets);

        // Keys in order of first use: as they were when every key stands where it did.
        let same_keys = same_keys && in_keys.len() == key_sets.len();
        let mut key_new = Vec::new();
        let mut order: Vec<u32> = Vec::new();
        if same_keys {
            order = (0..in_keys.len() as u32).collect();
        } else {
            key_new = vec![UNSEEN; in_keys.len()];
            for s in &self.segs {
                if let Some(k) = key_new.get_mut(s.key as usize) {
                    if *k == UNSEEN {
                        *k = order.len() as u32;
                        order.push(s.key);
                    }
                }
            }
        }

        // Changed sets (appended, or changed in place) stand for an equal set: an unchanged
        // one (found among the old sets holding their first member), or the first changed
        // one of their contents.
        let changed = |s: u32| s as usize >= old_sets || dirty.binary_search(&s).is_ok();
        let mut rep: FxHashMap<u32, u32> = FxHashMap::default();
        {
            let mut by_content: FxHashMap<&[u32], u32> = FxHashMap::default();
            let mut empty: Option<Option<u32>> = None;
            for &k in &order {
                let s = in_keys[k as usize].set;
                if !changed(s) || rep.contains_key(&s) {
                    continue;
                }
                let content = sets[s as usize].as_slice();
                let unchanged = match content.first() {
                    Some(&t) => run(&self.in_offsets, &self.in_sets, t as usize)
                        .iter()
                        .copied()
                        .find(|&u| !changed(u) && sets[u as usize] == content),
                    None => *empty.get_or_insert_with(|| {
                        (0..old_sets as u32).find(|&u| !changed(u) && sets[u as usize].is_empty())
                    }),
                };
                let r = match unchanged {
                    Some(u) => u,
                    None => *by_content.entry(content).or_insert(s),
                };
                rep.insert(s, r);
            }
        }
        // Only changed sets have a representative: the others are not looked up (a hash
        // lookup per key, on every patch, for nothing).
        let rep_of = |s: u32| {
            if changed(s) {
                rep.get(&s).copied().unwrap_or(s)
            } else {
                s
            }
        };

        // Sets in order of first use by the keys.
        let mut set_new = vec![UNSEEN; sets.len()];
        let mut source: Vec<u32> = Vec::new();
        let numbered: Vec<u32> = order
            .iter()
            .map(|&k| {
                let r = rep_of(in_keys[k as usize].set) as usize;
                if set_new[r] == UNSEEN {
                    set_new[r] = source.len() as u32;
                    source.push(r as u32);
                }
                set_new[r]
            })
            .collect();
        // Moved, not cloned (an `Arc` clone per key is a cache miss per key).
        let keys: Vec<Keyed> = if order.iter().enumerate().all(|(i, &k)| i == k as usize) {
            let mut keys = in_keys;
            keys.truncate(order.len());
            keys
        } else {
            let mut slots: Vec<Option<Keyed>> = in_keys.into_iter().map(Some).collect();
            order
                .iter()
                .filter_map(|&k| slots.get_mut(k as usize).and_then(Option::take))
                .collect()
        };
        let mut keys = keys;
        for (k, &set) in keys.iter_mut().zip(&numbered) {
            k.set = set;
        }
        // Every key with the set number it had: only the recomputed selections get theirs,
        // and each set keeps its selections.
        let same_sets = same_keys
            && source.len() == old_sets
            && keys.iter().zip(key_sets).all(|(k, &s)| k.set == s);
        if same_sets {
            // The recomputed selections take their keys' sets: those of `selecting`, or the
            // rebuilt stretch (which holds them) when counts changed.
            let set_from_key = |segs: &mut [Seg]| {
                for s in segs {
                    s.set = keys[s.key as usize].set;
                }
            };
            match moved {
                Some(stretch) => {
                    set_from_key(&mut self.segs[stretch.lo..stretch.new_hi]);
                    self.splice_users(stretch);
                }
                None => {
                    for &i in selecting {
                        let (a, b) = (
                            self.seg_offsets[i] as usize,
                            self.seg_offsets[i + 1] as usize,
                        );
                        set_from_key(&mut self.segs[a..b]);
                    }
                }
            }
        } else {
            self.renumber_segs(&key_new, &keys, source.len());
        }

        // Every unchanged set still used kept its number: only the objects of changed or
        // dropped sets (and the replaced ones) have other sets now.
        let unchanged_kept = |u: u32| !changed(u) && set_new[u as usize] == u;
        let kept_numbers = source
            .iter()
            .enumerate()
            .all(|(new, &r)| changed(r) || r as usize == new);
        // (object, set) pairs of the changed sets, by object.
        let mut pairs: Vec<(u32, u32)> = source
            .iter()
            .enumerate()
            .filter(|(_, &r)| changed(r))
            .flat_map(|(new, &r)| sets[r as usize].iter().map(move |&t| (t, new as u32)))
            .collect();
        pairs.sort_unstable();
        if kept_numbers {
            let mut touched: Vec<u32> = pairs.iter().map(|p| p.0).collect();
            touched.extend(replaced.iter().map(|&p| p as u32));
            for d in (0..old_sets as u32).filter(|&u| changed(u) || set_new[u as usize] == UNSEEN) {
                touched.extend(&sets[d as usize]);
            }
            touched.sort_unstable();
            touched.dedup();
            self.splice_in_sets(&touched, &pairs, unchanged_kept);
        } else {
            // Sets renumbered (a key or set dropped or added before others): every object's
            // entries of unchanged sets still used take their new numbers, in one pass over
            // the index, and the changed sets' members get theirs (not a counting sort of
            // every member of every set again).
            let renumbered = |u: u32| {
                let kept = (u as usize) < old_sets && !changed(u);
                kept.then(|| set_new[u as usize]).filter(|&m| m != UNSEEN)
            };
            self.renumber_in_sets(n, &renumbered, &pairs);
        }
        let identity = source.len() == sets.len()
            && source.iter().enumerate().all(|(new, &r)| r as usize == new);
        self.sets = if identity {
            sets
        } else {
            source
                .iter()
                .map(|&r| std::mem::take(&mut sets[r as usize]))
                .collect()
        };
        self.keys = keys;
        self.nodes = nodes;
        self.compact_except();
        self
    }

    /// Keys renumbered by `key_new` (none when empty: they kept their numbers), each
    /// selection's set taken from its key, the selections of each of `sets` sets indexed
    /// again.
    fn renumber_segs(&mut self, key_new: &[u32], keys: &[Keyed], sets: usize) {
        for s in &mut self.segs {
            let k = key_new.get(s.key as usize).copied().unwrap_or(s.key);
            s.key = k;
            s.set = keys[k as usize].set;
        }
        let user_counts = count_by(sets, self.segs.iter().map(|s| s.set as usize));
        self.user_offsets = offsets(user_counts.into_iter());
        self.users = fill(
            &self.user_offsets,
            self.segs
                .iter()
                .enumerate()
                .map(|(i, s)| (s.set as usize, i as u32)),
        );
    }

    /// The selections of `selecting` (ascending) replaced by `fresh` (theirs, by object).
    /// Returns whether every key keeps its number (each replaced selection has the key of
    /// the one before it; or, when counts changed, the keys first used in the rebuilt
    /// stretch are the same, in the same order, before and after: `key_sets` are the old
    /// keys' sets, to find earlier uses), and the stretch of selections rebuilt when counts
    /// changed (those after it moved).
    fn splice_segs(
        &mut self,
        fresh: Vec<Seg>,
        selecting: &[usize],
        key_sets: &[u32],
    ) -> (bool, Option<Stretch>) {
        let count = |segs: &[Seg], i: usize| segs.iter().filter(|s| s.from as usize == i).count();
        let offs = &self.seg_offsets;
        let old_len = |i: usize| match (offs.get(i), offs.get(i + 1)) {
            (Some(&a), Some(&b)) => (b - a) as usize,
            _ => 0,
        };
        let same = fresh
            .iter()
            .all(|s| selecting.binary_search(&(s.from as usize)).is_ok())
            && selecting.iter().all(|&i| old_len(i) == count(&fresh, i));
        if same {
            let mut fresh = fresh.into_iter();
            let mut same_keys = true;
            for &i in selecting {
                let start = offs[i] as usize;
                let slots = &mut self.segs[start..start + old_len(i)];
                for (slot, seg) in slots.iter_mut().zip(fresh.by_ref()) {
                    same_keys &= slot.key == seg.key;
                    *slot = seg;
                }
            }
            return (same_keys, None);
        }
        // Counts changed: the stretch from the first changed object to the last is rebuilt
        // from the old and the fresh selections and spliced in (one move of the tail), the
        // offsets after it shifted; what lies outside it is neither read nor moved.
        let n = self.seg_offsets.len().saturating_sub(1);
        let mut objects: Vec<usize> = selecting
            .iter()
            .copied()
            .chain(fresh.iter().map(|s| s.from as usize))
            .filter(|&i| i < n)
            .collect();
        objects.sort_unstable();
        objects.dedup();
        let (Some(&first), Some(&last)) = (objects.first(), objects.last()) else {
            return (false, None);
        };
        let (lo, hi) = (
            self.seg_offsets[first] as usize,
            self.seg_offsets[last + 1] as usize,
        );
        // Keys keep their numbers (order of first use) when the keys first used in the
        // stretch are the same, in the same order, before and after.
        let keys = self.segs[lo..hi].iter().chain(&fresh).map(|s| s.key);
        let used = self.used_before(lo, keys, key_sets);
        let old_firsts = first_uses(&self.segs[lo..hi], &used);
        let mut fresh = fresh.into_iter().peekable();
        let mut recomputed = selecting.iter().copied().peekable();
        let mut mid: Vec<Seg> = Vec::with_capacity(hi - lo + fresh.len());
        let mut ends: Vec<u32> = Vec::with_capacity(last + 1 - first);
        let blank = EdgeName::of("");
        let placeholder = || Seg {
            from: 0,
            via: blank,
            key: 0,
            set: UNSEEN,
            except: (0, 0),
        };
        for i in first..=last {
            while recomputed.next_if(|&r| r < i).is_some() {}
            if recomputed.next_if_eq(&i).is_none() {
                let (a, b) = (
                    self.seg_offsets[i] as usize,
                    self.seg_offsets[i + 1] as usize,
                );
                mid.extend(
                    self.segs[a..b]
                        .iter_mut()
                        .map(|s| std::mem::replace(s, placeholder())),
                );
            }
            while let Some(s) = fresh.next_if(|s| s.from as usize == i) {
                mid.push(s);
            }
            ends.push(u32::try_from(lo + mid.len()).unwrap_or(u32::MAX));
        }
        let same_keys = first_uses(&mid, &used) == old_firsts;
        #[cfg(test)]
        if same_keys {
            count_kept(0);
        }
        let mut old_sets: Vec<u32> = self.segs[lo..hi].iter().map(|s| s.set).collect();
        old_sets.sort_unstable();
        old_sets.dedup();
        let old_end = self.seg_offsets[last + 1];
        let delta = i64::from(ends.last().copied().unwrap_or(old_end)) - i64::from(old_end);
        self.segs.splice(lo..hi, mid);
        self.seg_offsets[first + 1..=last + 1].copy_from_slice(&ends);
        if delta != 0 {
            for o in &mut self.seg_offsets[last + 2..] {
                *o = (i64::from(*o) + delta) as u32;
            }
        }
        let new_hi = (i64::try_from(hi).unwrap_or(i64::MAX) + delta) as usize;
        let stretch = Stretch {
            lo,
            hi,
            new_hi,
            old_sets,
        };
        (same_keys, Some(stretch))
    }

    /// Of `keys` (old numbers; `key_sets` their sets), those used by a selection before
    /// `lo`, ascending. Keys are numbered in order of first use, so a key is when one
    /// numbered above it is among the [`RECENT`] selections before `lo`, or when its set's
    /// index shows a use. Undecided within that bound, a key counts as unused (which can
    /// only find a change of numbers where there is none, never the reverse).
    fn used_before(
        &self,
        lo: usize,
        keys: impl Iterator<Item = u32>,
        key_sets: &[u32],
    ) -> Vec<u32> {
        let recent = self.segs[lo.saturating_sub(RECENT)..lo]
            .iter()
            .map(|s| s.key)
            .max();
        let used = |k: u32| {
            recent.is_some_and(|m| k <= m)
                || key_sets.get(k as usize).is_some_and(|&set| {
                    let users = run(&self.user_offsets, &self.users, set as usize);
                    let before = &users[..users.partition_point(|&u| (u as usize) < lo)];
                    before.len() <= RECENT && before.iter().any(|&u| self.segs[u as usize].key == k)
                })
        };
        let mut keys: Vec<u32> = keys.collect();
        keys.sort_unstable();
        keys.dedup();
        keys.retain(|&k| used(k));
        keys
    }

    /// The selection index of every set after [`SelectorEdges::splice_segs`] rebuilt
    /// `stretch` (sets unchanged in number): the selections before it stay, those in it are
    /// taken from the new stretch (their sets set), those after it move by what it gained
    /// or lost. One pass over the index, not a counting sort of every selection.
    fn splice_users(&mut self, stretch: Stretch) {
        let Stretch {
            lo,
            hi,
            new_hi,
            old_sets,
        } = stretch;
        #[cfg(test)]
        count_kept(1);
        let sets = self.user_offsets.len().saturating_sub(1);
        let mut fresh: Vec<(u32, u32)> =
            (lo..new_hi).map(|i| (self.segs[i].set, i as u32)).collect();
        fresh.sort_unstable();
        // Only the sets that held a selection of the stretch or get one change their runs;
        // every other set's run is copied, its selections after the stretch moved.
        let mut touched: Vec<u32> = old_sets
            .into_iter()
            .chain(fresh.iter().map(|f| f.0))
            .collect();
        touched.sort_unstable();
        touched.dedup();
        touched.retain(|&s| (s as usize) < sets);
        let gained = new_hi as i64 - hi as i64;
        let moved = |u: u32| {
            if (u as usize) < hi {
                u
            } else {
                (i64::from(u) + gained) as u32
            }
        };
        let mut fresh = fresh.into_iter().peekable();
        let mut users = Vec::with_capacity(self.users.len() + new_hi.saturating_sub(hi));
        // The touched sets' new ends.
        let mut ends: Vec<(usize, u32)> = Vec::with_capacity(touched.len());
        let mut copied = 0usize;
        for &s in &touched {
            let s = s as usize;
            let (a, b) = (
                self.user_offsets[s] as usize,
                self.user_offsets[s + 1] as usize,
            );
            users.extend(self.users[copied..a].iter().map(|&u| moved(u)));
            let old = &self.users[a..b];
            let before = old.partition_point(|&u| (u as usize) < lo);
            let after = old.partition_point(|&u| (u as usize) < hi);
            users.extend_from_slice(&old[..before]);
            while let Some((_, u)) = fresh.next_if(|f| f.0 as usize == s) {
                users.push(u);
            }
            users.extend(old[after..].iter().map(|&u| moved(u)));
            copied = b;
            ends.push((s, u32::try_from(users.len()).unwrap_or(u32::MAX)));
        }
        users.extend(self.users[copied..].iter().map(|&u| moved(u)));
        // Offsets from the first touched set on: a touched set's end as found, the others
        // moved by what the touched sets before them gained.
        let mut ends = ends.into_iter().peekable();
        let mut gained = 0i64;
        if let Some(&(first, _)) = ends.peek() {
            for s in first..sets {
                let end = &mut self.user_offsets[s + 1];
                match ends.next_if(|e| e.0 == s) {
                    Some((_, new)) => {
                        gained = i64::from(new) - i64::from(*end);
                        *end = new;
                    }
                    None => *end = (i64::from(*end) + gained) as u32,
                }
            }
        }
        self.users = users;
    }

    /// The per-object set index of `n` objects with every entry `s` replaced by
    /// `renumbered(s)` (left out when `None`) and the `pairs` (object, set; by object)
    /// added, each object's run kept ascending.
    fn renumber_in_sets(
        &mut self,
        n: usize,
        renumbered: &dyn Fn(u32) -> Option<u32>,
        pairs: &[(u32, u32)],
    ) {
        let mut offsets: Vec<u32> = Vec::with_capacity(self.in_offsets.capacity());
        let mut out: Vec<u32> = Vec::with_capacity(self.in_sets.len() + pairs.len());
        offsets.push(0);
        let mut pairs = pairs.iter().peekable();
        for t in 0..n {
            let before = out.len();
            out.extend(
                run(&self.in_offsets, &self.in_sets, t)
                    .iter()
                    .filter_map(|&s| renumbered(s)),
            );
            while let Some(&(_, s)) = pairs.next_if(|p| p.0 as usize == t) {
                out.push(s);
            }
            if !out[before..].is_sorted() {
                out[before..].sort_unstable();
            }
            offsets.push(u32::try_from(out.len()).unwrap_or(u32::MAX));
        }
        self.in_offsets = offsets;
        self.in_sets = out;
    }

    /// Rewrites the sets of the `touched` objects (ascending): their old sets that `keep`
    /// says stay (same numbers), and those `pairs` (object, set; by object) give them.
    fn splice_in_sets(
        &mut self,
        touched: &[u32],
        pairs: &[(u32, u32)],
        keep: impl Fn(u32) -> bool,
    ) {
        let n = self.in_offsets.len().saturating_sub(1);
        if touched.is_empty() {
            return;
        }
        let mut runs: Vec<u32> = Vec::new();
        let mut ends: Vec<usize> = Vec::with_capacity(touched.len());
        let mut pairs = pairs.iter().peekable();
        for &t in touched {
            let before = runs.len();
            let old = run(&self.in_offsets, &self.in_sets, t as usize);
            runs.extend(old.iter().copied().filter(|&s| keep(s)));
            while let Some(&(_, s)) = pairs.next_if(|p| p.0 == t) {
                runs.push(s);
            }
            runs[before..].sort_unstable();
            ends.push(runs.len());
        }
        let new_run = |k: usize| &runs[k.checked_sub(1).map_or(0, |j| ends[j])..ends[k]];
        let old_len = |t: u32| run(&self.in_offsets, &self.in_sets, t as usize).len();
        let same = touched
            .iter()
            .enumerate()
            .all(|(k, &t)| (t as usize) < n && new_run(k).len() == old_len(t));
        if same {
            for (k, &t) in touched.iter().enumerate() {
                let a = self.in_offsets[t as usize] as usize;
                self.in_sets[a..a + new_run(k).len()].copy_from_slice(new_run(k));
            }
            return;
        }
        let mut out: Vec<u32> = Vec::with_capacity(self.in_sets.len() + runs.len());
        let mut counts: Vec<(usize, usize)> = Vec::with_capacity(touched.len());
        let mut prev = 0usize;
        for (k, &t) in touched
            .iter()
            .enumerate()
            .filter(|(_, &t)| (t as usize) < n)
        {
            let (a, b) = (
                self.in_offsets[t as usize] as usize,
                self.in_offsets[t as usize + 1] as usize,
            );
            out.extend_from_slice(&self.in_sets[prev..a]);
            out.extend_from_slice(new_run(k));
            counts.push((t as usize, new_run(k).len()));
            prev = b;
        }
        out.extend_from_slice(&self.in_sets[prev..]);
        self.in_sets = out;
        // Offsets after each touched object move by what its run gained or lost.
        let mut delta: i64 = 0;
        let mut counts = counts.into_iter().peekable();
        let mut old_start = self
            .in_offsets
            .get(touched[0] as usize)
            .copied()
            .unwrap_or(0);
        for t in touched[0] as usize..n {
            let old_end = self.in_offsets[t + 1];
            if let Some((_, c)) = counts.next_if(|&(x, _)| x == t) {
                delta += c as i64 - i64::from(old_end - old_start);
            }
            old_start = old_end;
            self.in_offsets[t + 1] = (i64::from(old_end) + delta) as u32;
        }
    }
}

/// The keys `segs` use, in order of first use, but for those `used` (ascending) holds.
fn first_uses(segs: &[Seg], used: &[u32]) -> Vec<u32> {
    let mut firsts: Vec<u32> = Vec::new();
    for s in segs {
        if used.binary_search(&s.key).is_err() && !firsts.contains(&s.key) {
            firsts.push(s.key);
        }
    }
    firsts
}
