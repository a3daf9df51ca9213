//! Selector edges patched where they are, for a change that moves no position (a file
//! edited, its object count kept): what [`SelectorEdges::build`] gives for the patched
//! selections, without hashing every set's contents again or rebuilding every index.
//!
//! A patch takes the keys and sets out ([`SelectorEdges::take_keyed`]), brings the keys'
//! sets up to date and matches the recomputed objects' fields again (as `Selections`: the
//! old sets, some changed in place, new ones appended), then [`SelectorEdges::splice`]
//! puts the recomputed objects' selections where theirs were.
//!
//! Every key and set keeps its number: keys and sets the patch adds are appended, a key
//! given a new set (its members changed, and sets are shared between keys) keeps its own
//! number, and a set no key holds any more is emptied where it stands. So nothing is
//! numbered again and only what changed is written: the recomputed objects' selections,
//! the other selections of keys given new sets, those sets' runs of the per-set selection
//! index, and the per-object set index of the changed sets' members. A build numbers keys
//! and sets in order of first use and stores equal sets once; a patch's numbers differ
//! from a build's, its selections and edges do not (equality numbers both as a build
//! does). Keys no selection uses stay (their sets kept up to date): a selector added again
//! finds its key instead of scanning for its members. When keys or sets have grown well
//! past what the last build numbered, the patch ends with a build of its selections.

use super::{push_except, run, Members, Seg, Selections, SelectorEdges};
use rayon::prelude::*;

use crate::graph::{EdgeName, Resize, GAP_CHUNK};

#[cfg(test)]
thread_local! {
    /// Splices that rebuilt a stretch of selections (counts changed), that moved other
    /// selections of keys given new sets, that wrote the exceptions again, and that
    /// numbered keys and sets again (a build).
    pub(in crate::graph) static SPLICES: std::cell::Cell<[usize; 4]> =
        const { std::cell::Cell::new([0; 4]) };
}

/// Counts one splice in [`SPLICES`]`[which]`.
#[cfg(test)]
pub(super) fn count_splice(which: usize) {
    SPLICES.with(|c| {
        let mut counts = c.get();
        counts[which] += 1;
        c.set(counts);
    });
}

/// How far keys or sets may grow past what a build numbered (`at`) before a patch builds
/// again. (Tests: a few, so that patches build again often.)
fn grown(now: usize, at: usize) -> bool {
    if cfg!(test) {
        now > at + 3
    } else {
        now > 2 * at + 1024
    }
}

/// Selections `lo..hi` replaced by `lo..new_hi`, those after moved.
#[derive(Clone)]
struct Stretch {
    lo: usize,
    hi: usize,
    new_hi: usize,
    /// The sets of the selections the stretch held before (those whose index lose them).
    old_sets: Vec<u32>,
}

/// A selection whose set changed, outside a rebuilt stretch: where it stood and stands, and
/// its set before and now.
#[derive(Clone, Copy)]
struct Move {
    old: u32,
    new: u32,
    from_set: u32,
    to_set: u32,
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
        // Selections and members below the first moved position stay (both are ascending
        // by position: only their tails are read and written).
        let unmoved = resize.unmoved_below();
        let first_seg = self
            .seg_offsets
            .get(unmoved)
            .map_or(self.segs.len(), |&o| o as usize);
        self.segs[first_seg..]
            .par_iter_mut()
            .with_min_len(GAP_CHUNK)
            .for_each(|seg| seg.from = moved(seg.from));
        // Exceptions are not ordered by position: those below the first moved one are read,
        // not written.
        self.except
            .par_iter_mut()
            .with_min_len(GAP_CHUNK)
            .filter(|t| (**t as usize) >= unmoved)
            .for_each(|t| *t = moved(*t));
        self.sets.par_iter_mut().with_min_len(64).for_each(|set| {
            let from = set.partition_point(|&t| (t as usize) < unmoved);
            for t in &mut set[from..] {
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
    /// `merged.list` (theirs, by selecting object), over `merged`'s keys and sets (up to
    /// numbering: see the module documentation): keys and sets taken out by
    /// [`SelectorEdges::take_keyed`], then brought up to date: the sets at `dirty`
    /// (ascending) changed in place, the keys of `repointed` (ascending, with their sets
    /// before) given new sets, sets and keys appended after the `old_keys` there were. No
    /// position moved; `replaced` are the positions whose objects were replaced.
    pub fn splice(
        mut self,
        merged: Selections,
        selecting: &[usize],
        (dirty, repointed, old_keys): (&[u32], &[(u32, u32)], usize),
        replaced: &[usize],
    ) -> SelectorEdges {
        let Selections {
            mut list,
            mut sets,
            keys,
            nodes,
        } = merged;
        let n = self.seg_offsets.len().saturating_sub(1);
        let old_sets = self.user_offsets.len().saturating_sub(1);
        let set_of = |k: u32| keys.get(k as usize).map_or(0, |k| k.set);

        // How many keys hold each set, brought up to date; the old sets no key holds now.
        let mut refs = std::mem::take(&mut self.key_refs);
        refs.resize(sets.len(), 0);
        for &(k, before) in repointed {
            if let Some(r) = refs.get_mut(before as usize) {
                *r = r.saturating_sub(1);
            }
            refs[set_of(k) as usize] += 1;
        }
        for k in keys.iter().skip(old_keys) {
            refs[k.set as usize] += 1;
        }
        let mut emptied: Vec<u32> = repointed
            .iter()
            .map(|r| r.1)
            .filter(|&s| refs.get(s as usize) == Some(&0))
            .collect();
        emptied.sort_unstable();
        emptied.dedup();
        let added_sets = old_sets as u32..sets.len() as u32;
        // Sets added by this patch that no key took are left empty too.
        for s in added_sets.clone().filter(|&s| refs[s as usize] == 0) {
            sets[s as usize] = Members::new();
        }

        // The recomputed objects' selections where theirs were.
        list.sort_by_key(|s| s.from);
        let except = &mut self.except;
        let fresh: Vec<Seg> = list
            .into_iter()
            .map(|s| Seg {
                from: s.from as u32,
                via: EdgeName::of(s.via),
                key: s.key,
                set: set_of(s.key),
                except: push_except(except, &s.except),
            })
            .collect();
        let (stretch, mut moves) = match self.splice_segs(fresh, selecting) {
            Spliced::InPlace(moves) => (None, moves),
            Spliced::Stretch(stretch) => {
                // The stretch's other selections take their keys' sets too.
                for s in &mut self.segs[stretch.lo..stretch.new_hi] {
                    s.set = set_of(s.key);
                }
                (Some(stretch), Vec::new())
            }
        };

        // The other selections of the keys given new sets, found through their old sets'
        // runs of the selection index (not yet rewritten: old places).
        let gained = stretch
            .as_ref()
            .map_or(0, |s| s.new_hi as i64 - s.hi as i64);
        for &(k, before) in repointed {
            let now = set_of(k);
            for &u in run(&self.user_offsets, &self.users, before as usize) {
                let new = match &stretch {
                    Some(st) if (st.lo..st.hi).contains(&(u as usize)) => continue,
                    Some(st) if u as usize >= st.hi => (i64::from(u) + gained) as u32,
                    _ => u,
                };
                let Some(seg) = self.segs.get_mut(new as usize) else {
                    continue;
                };
                if seg.key != k
                    || (stretch.is_none() && selecting.binary_search(&(seg.from as usize)).is_ok())
                {
                    continue;
                }
                seg.set = now;
                moves.push(Move {
                    old: u,
                    new,
                    from_set: before,
                    to_set: now,
                });
            }
        }
        #[cfg(test)]
        if !moves.is_empty() {
            count_splice(1);
        }
        self.splice_users(stretch, moves, sets.len());

        // The per-object set index: the members of the changed sets still held (changed in
        // place, or added) take them, the emptied ones and the replaced objects drop theirs.
        let changed = |s: u32| s as usize >= old_sets || dirty.binary_search(&s).is_ok();
        let held = |s: u32| refs.get(s as usize).is_some_and(|&r| r > 0);
        let mut pairs: Vec<(u32, u32)> = dirty
            .iter()
            .copied()
            .chain(added_sets)
            .filter(|&s| held(s))
            .flat_map(|s| sets[s as usize].iter().map(move |&t| (t, s)))
            .collect();
        pairs.sort_unstable();
        let mut touched: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        touched.extend(replaced.iter().map(|&p| p as u32));
        for &s in &emptied {
            touched.extend(&sets[s as usize]);
        }
        touched.sort_unstable();
        touched.dedup();
        self.splice_in_sets(&touched, &pairs, |s| !changed(s) && held(s));
        for &s in &emptied {
            sets[s as usize] = Members::new();
        }

        self.sets = sets;
        self.keys = keys;
        self.key_refs = refs;
        self.nodes = nodes;
        self.compact_except();
        if grown(self.keys.len(), self.numbered.0) || grown(self.sets.len(), self.numbered.1) {
            #[cfg(test)]
            count_splice(3);
            return SelectorEdges::build(n, self.into_selections());
        }
        self
    }

    /// The selections of `selecting` (ascending) replaced by `fresh` (theirs, by object,
    /// each with its key's set): in place when each object keeps its number of selections
    /// (with the selections whose set changed), else the stretch from the first changed
    /// object to the last rebuilt.
    fn splice_segs(&mut self, fresh: Vec<Seg>, selecting: &[usize]) -> Spliced {
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
            let mut moves = Vec::new();
            for &i in selecting {
                let start = offs[i] as usize;
                let slots = &mut self.segs[start..start + old_len(i)];
                for (j, (slot, seg)) in slots.iter_mut().zip(fresh.by_ref()).enumerate() {
                    if slot.set != seg.set {
                        let at = (start + j) as u32;
                        moves.push(Move {
                            old: at,
                            new: at,
                            from_set: slot.set,
                            to_set: seg.set,
                        });
                    }
                    *slot = seg;
                }
            }
            return Spliced::InPlace(moves);
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
            return Spliced::InPlace(Vec::new());
        };
        #[cfg(test)]
        count_splice(0);
        let (lo, hi) = (
            self.seg_offsets[first] as usize,
            self.seg_offsets[last + 1] as usize,
        );
        let mut old_sets: Vec<u32> = self.segs[lo..hi].iter().map(|s| s.set).collect();
        old_sets.sort_unstable();
        old_sets.dedup();
        let mut fresh = fresh.into_iter().peekable();
        let mut recomputed = selecting.iter().copied().peekable();
        let mut mid: Vec<Seg> = Vec::with_capacity(hi - lo + fresh.len());
        let mut ends: Vec<u32> = Vec::with_capacity(last + 1 - first);
        let blank = EdgeName::of("");
        let placeholder = || Seg {
            from: 0,
            via: blank,
            key: 0,
            set: 0,
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
        Spliced::Stretch(Stretch {
            lo,
            hi,
            new_hi,
            old_sets,
        })
    }

    /// The selection index by set after [`SelectorEdges::splice_segs`] (now `sets` sets,
    /// those added holding none before): the selections of a rebuilt `stretch` taken out of
    /// the sets they were in and put in those they are in, the selections after it moved by
    /// what it gained or lost, and each of `moves` taken out of its old set and put in its
    /// new one. Only the touched sets' runs are written again; the others are copied (or,
    /// when no run changes length, left where they are).
    fn splice_users(&mut self, stretch: Option<Stretch>, moves: Vec<Move>, sets: usize) {
        let end = self.user_offsets.last().copied().unwrap_or(0);
        if self.user_offsets.is_empty() {
            self.user_offsets.push(0);
        }
        self.user_offsets.resize(sets + 1, end);
        let (lo, hi, new_hi, old_sets) = match stretch {
            Some(s) => (s.lo, s.hi, s.new_hi, s.old_sets),
            None => (0, 0, 0, Vec::new()),
        };
        let gained = new_hi as i64 - hi as i64;
        let moved = |u: u32| {
            if (u as usize) < hi {
                u
            } else {
                (i64::from(u) + gained) as u32
            }
        };
        // Entries out and in, by set.
        let mut out: Vec<(u32, u32)> = moves.iter().map(|m| (m.from_set, m.old)).collect();
        out.sort_unstable();
        let mut fresh: Vec<(u32, u32)> = (lo..new_hi)
            .map(|i| (self.segs[i].set, i as u32))
            .chain(moves.iter().map(|m| (m.to_set, m.new)))
            .collect();
        fresh.sort_unstable();
        let mut touched: Vec<u32> = old_sets
            .into_iter()
            .chain(out.iter().map(|o| o.0))
            .chain(fresh.iter().map(|f| f.0))
            .collect();
        touched.sort_unstable();
        touched.dedup();
        touched.retain(|&s| (s as usize) < sets);
        if touched.is_empty() && gained == 0 {
            return;
        }
        // The touched sets' new runs, one after another.
        let mut runs: Vec<u32> = Vec::new();
        let mut ends: Vec<usize> = Vec::with_capacity(touched.len());
        let (mut out, mut fresh) = (out.into_iter().peekable(), fresh.into_iter().peekable());
        for &s in &touched {
            let mut gone: Vec<u32> = Vec::new();
            while let Some((_, u)) = out.next_if(|o| o.0 == s) {
                gone.push(u);
            }
            let mut came: Vec<u32> = Vec::new();
            while let Some((_, u)) = fresh.next_if(|f| f.0 == s) {
                came.push(u);
            }
            let kept = run(&self.user_offsets, &self.users, s as usize)
                .iter()
                .copied()
                .filter(|&u| !(lo..hi).contains(&(u as usize)) && gone.binary_search(&u).is_err())
                .map(moved);
            // Both ascending: merged, not sorted (a set's run can hold most selections).
            let mut came = came.into_iter().peekable();
            for u in kept {
                while let Some(c) = came.next_if(|&c| c < u) {
                    runs.push(c);
                }
                runs.push(u);
            }
            runs.extend(came);
            ends.push(runs.len());
        }
        let new_run = |k: usize| &runs[k.checked_sub(1).map_or(0, |j| ends[j])..ends[k]];
        let old_len = |s: u32| run(&self.user_offsets, &self.users, s as usize).len();
        if gained == 0
            && touched
                .iter()
                .enumerate()
                .all(|(k, &s)| new_run(k).len() == old_len(s))
        {
            for (k, &s) in touched.iter().enumerate() {
                let a = self.user_offsets[s as usize] as usize;
                self.users[a..a + new_run(k).len()].copy_from_slice(new_run(k));
            }
            return;
        }
        let mut users = Vec::with_capacity(self.users.len() + runs.len());
        let mut copied = 0usize;
        let mut new_ends: Vec<(usize, u32)> = Vec::with_capacity(touched.len());
        for (k, &s) in touched.iter().enumerate() {
            let s = s as usize;
            let (a, b) = (
                self.user_offsets[s] as usize,
                self.user_offsets[s + 1] as usize,
            );
            users.extend(self.users[copied..a].iter().map(|&u| moved(u)));
            users.extend_from_slice(new_run(k));
            copied = b;
            new_ends.push((s, u32::try_from(users.len()).unwrap_or(u32::MAX)));
        }
        users.extend(self.users[copied..].iter().map(|&u| moved(u)));
        // Offsets from the first touched set on: a touched set's end as found, the others
        // moved by what the touched sets before them gained.
        let mut new_ends = new_ends.into_iter().peekable();
        let mut grew = 0i64;
        if let Some(&(first, _)) = new_ends.peek() {
            for s in first..sets {
                let end = &mut self.user_offsets[s + 1];
                match new_ends.next_if(|e| e.0 == s) {
                    Some((_, new)) => {
                        grew = i64::from(new) - i64::from(*end);
                        *end = new;
                    }
                    None => *end = (i64::from(*end) + grew) as u32,
                }
            }
        }
        self.users = users;
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

/// What [`SelectorEdges::splice_segs`] did.
enum Spliced {
    /// Each selection replaced where it stood; those whose set changed.
    InPlace(Vec<Move>),
    /// A stretch rebuilt.
    Stretch(Stretch),
}
