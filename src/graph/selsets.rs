//! Selector edges stored as shared matched sets instead of one pair per edge.
//!
//! Many objects often carry the same selector in one namespace (5,000 Services selecting
//! `app=web`): as pairs that is N × M edges, as sets it is one set of M objects and N
//! selections pointing at it. Each selection is one selector field of one object: the set it
//! matched (ascending object positions, shared by every equal selection), the field it came
//! from, and the few members it does not select after all (the Pods a workload already
//! owns). Edges are produced on demand, in the order a list of pairs grouped by selecting
//! object would hold them, so callers see the same edges as before.

use rustc_hash::FxHashMap;

use super::{Edge, EdgeKind};

/// One selector field of one object and what it matched.
#[derive(Clone, Debug)]
pub(super) struct Selection {
    /// The selecting object.
    pub from: usize,
    pub via: &'static str,
    /// The matched set, in [`Selections::sets`].
    pub set: u32,
    /// Members of the set this selection does not select, ascending.
    pub except: Vec<u32>,
}

/// Selections and the sets they matched (each set ascending, shared by id between equal
/// selectors): what computing a graph yields, before [`SelectorEdges::build`] indexes it.
#[derive(Clone, Debug, Default)]
pub(super) struct Selections {
    pub list: Vec<Selection>,
    pub sets: Vec<Vec<u32>>,
}

impl Selections {
    /// Adds a matched set (ascending); its id.
    pub fn add_set(&mut self, members: Vec<u32>) -> u32 {
        self.sets.push(members);
        (self.sets.len() - 1) as u32
    }

    /// The members of set `id`.
    pub fn set(&self, id: u32) -> &[u32] {
        self.sets.get(id as usize).map_or(&[], Vec::as_slice)
    }

    /// Object `from` selects set `set` but `except` through field `via`.
    pub fn select(&mut self, from: usize, via: &'static str, set: u32, except: Vec<u32>) {
        self.list.push(Selection {
            from,
            via,
            set,
            except,
        });
    }

    /// The selections whose selecting object `from` moves to (`None`: left out), their
    /// sets' and exceptions' members moved by `member` (monotonic, so sets stay ascending;
    /// members without a position are left out). Each set is moved once, in place.
    pub fn moved(
        mut self,
        from: impl Fn(usize) -> Option<usize>,
        member: impl Fn(usize) -> Option<usize>,
    ) -> Selections {
        let move_all = |ids: &mut Vec<u32>| {
            ids.retain_mut(|t| match member(*t as usize) {
                Some(n) => {
                    *t = n as u32;
                    true
                }
                None => false,
            })
        };
        let mut done = vec![false; self.sets.len()];
        self.list.retain_mut(|s| {
            let Some(f) = from(s.from) else {
                return false;
            };
            s.from = f;
            move_all(&mut s.except);
            if let (Some(d), Some(set)) = (
                done.get_mut(s.set as usize),
                self.sets.get_mut(s.set as usize),
            ) {
                if !*d {
                    *d = true;
                    move_all(set);
                }
            }
            true
        });
        // Sets no selection kept are not moved; free them.
        for (set, d) in self.sets.iter_mut().zip(&done) {
            if !d {
                *set = Vec::new();
            }
        }
        self
    }

    /// Appends `other`'s selections and sets.
    pub fn append(&mut self, other: Selections) {
        let base = self.sets.len() as u32;
        self.sets.extend(other.sets);
        self.list.extend(other.list.into_iter().map(|s| Selection {
            set: s.set + base,
            ..s
        }));
    }
}

/// One selection, its set referred to by id.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seg {
    from: u32,
    via: &'static str,
    set: u32,
    except: Box<[u32]>,
}

impl Seg {
    /// Whether it selects member `t` of its set (never itself: a selector does not link an
    /// object to itself).
    fn picks(&self, t: u32) -> bool {
        t != self.from && self.except.binary_search(&t).is_err()
    }
}

/// Every selection of a graph, with its sets shared and indexed both ways.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct SelectorEdges {
    /// `segs[seg_offsets[i]..seg_offsets[i + 1]]`: object `i`'s selections, as found.
    seg_offsets: Vec<u32>,
    segs: Vec<Seg>,
    /// Distinct matched sets (equal contents are stored once).
    sets: Vec<Vec<u32>>,
    /// `users[user_offsets[s]..user_offsets[s + 1]]`: the selections of set `s`, ascending.
    user_offsets: Vec<u32>,
    users: Vec<u32>,
    /// `in_sets[in_offsets[t]..in_offsets[t + 1]]`: the sets holding object `t`, ascending.
    in_offsets: Vec<u32>,
    in_sets: Vec<u32>,
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
    /// (stable: the order they were found in stays), selections matching nothing are
    /// dropped, and sets of equal contents are merged and numbered in order of first use,
    /// so equal selections give equal results whether they come from a build or a patch.
    pub fn build(n: usize, selections: Selections) -> SelectorEdges {
        let Selections { mut list, mut sets } = selections;
        list.sort_by_key(|s| s.from);
        list.retain(|s| sets.get(s.set as usize).is_some_and(|m| !m.is_empty()));
        // Input set id → stored set id; stored set id → input set id.
        let mut stored = vec![UNSEEN; sets.len()];
        let mut source: Vec<u32> = Vec::new();
        {
            let mut by_content: FxHashMap<&[u32], u32> = FxHashMap::default();
            for s in &list {
                let slot = &mut stored[s.set as usize];
                if *slot == UNSEEN {
                    *slot = *by_content
                        .entry(sets[s.set as usize].as_slice())
                        .or_insert_with(|| {
                            source.push(s.set);
                            (source.len() - 1) as u32
                        });
                }
            }
        }
        let sets: Vec<Vec<u32>> = source
            .iter()
            .map(|&i| std::mem::take(&mut sets[i as usize]))
            .collect();
        let segs: Vec<Seg> = list
            .into_iter()
            .map(|s| Seg {
                from: s.from as u32,
                via: s.via,
                set: stored[s.set as usize],
                except: s.except.into_boxed_slice(),
            })
            .collect();
        let seg_offsets = offsets(count_by(n, segs.iter().map(|s| s.from as usize)).into_iter());
        let user_counts = count_by(sets.len(), segs.iter().map(|s| s.set as usize));
        let user_offsets = offsets(user_counts.into_iter());
        let users = fill(
            &user_offsets,
            segs.iter()
                .enumerate()
                .map(|(i, s)| (s.set as usize, i as u32)),
        );
        let member_counts = count_by(n, sets.iter().flat_map(|s| s.iter().map(|&t| t as usize)));
        let in_offsets = offsets(member_counts.into_iter());
        let in_sets = fill(
            &in_offsets,
            sets.iter()
                .enumerate()
                .flat_map(|(id, s)| s.iter().map(move |&t| (t as usize, id as u32))),
        );
        SelectorEdges {
            seg_offsets,
            segs,
            sets,
            user_offsets,
            users,
            in_offsets,
            in_sets,
        }
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
            .filter(move |seg| seg.picks(t))
            .map(move |seg| edge(seg, obj))
    }

    /// Every selection and set, as found (for a patch to carry over).
    pub fn into_selections(self) -> Selections {
        let list = self
            .segs
            .into_iter()
            .map(|seg| Selection {
                from: seg.from as usize,
                via: seg.via,
                set: seg.set,
                except: seg.except.into_vec(),
            })
            .collect();
        Selections {
            list,
            sets: self.sets,
        }
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
            .filter(move |&&t| seg.picks(t))
            .map(|&t| t as usize)
    }
}

fn edge(seg: &Seg, to: usize) -> Edge {
    Edge {
        from: seg.from as usize,
        to,
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
            for &t in sel.set(s.set) {
                if t as usize != s.from && !s.except.contains(&t) {
                    out.push(Edge {
                        from: s.from,
                        to: t as usize,
                        kind: EdgeKind::Selector { via: s.via },
                    });
                }
            }
        }
        out
    }

    /// Selections over `n` objects: a few shared sets, copies of them (equal contents,
    /// other ids) and singletons, with exceptions and self-members.
    fn selections(n: usize, picks: &[(usize, usize, usize, u8)]) -> Selections {
        let mut sel = Selections::default();
        for k in 0..3u32 {
            sel.add_set((0..n as u32).filter(|t| (t + k) % (k + 2) == 0).collect());
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
            sel.select(from % n, via, id, except);
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
                let want: Vec<Edge> = expected.iter().filter(|e| e.to == t).copied().collect();
                prop_assert_eq!(by, want, "selected_by({})", t);
            }
            prop_assert!(edges.selects(n).next().is_none() && edges.selected_by(n).next().is_none());
            // Carried over unchanged (a patch that moves nothing), the same index.
            let again = edges.clone().into_selections().moved(Some, Some);
            prop_assert_eq!(SelectorEdges::build(n, again), edges);
        }
    }

    #[test]
    fn equal_sets_are_stored_once() {
        let mut sel = Selections::default();
        let set = sel.add_set(vec![1, 2, 3]);
        let copy = sel.add_set(vec![1, 2, 3]);
        let empty = sel.add_set(Vec::new());
        sel.select(0, "a", set, vec![]);
        sel.select(4, "a", copy, vec![2]);
        sel.select(5, "b", set, vec![]);
        sel.select(6, "b", empty, vec![]);
        let edges = SelectorEdges::build(7, sel);
        assert_eq!(edges.sets.len(), 1);
        assert_eq!(
            edges.segs.len(),
            3,
            "a selection matching nothing is dropped"
        );
        let from: Vec<usize> = edges.selected_by(2).map(|e| e.from).collect();
        assert_eq!(from, vec![0, 5]);
    }

    #[test]
    fn moving_drops_what_is_gone_and_shifts_the_rest() {
        let mut sel = Selections::default();
        let set = sel.add_set(vec![1, 2, 3]);
        sel.select(0, "a", set, vec![2]);
        sel.select(3, "a", set, vec![]);
        sel.select(4, "a", set, vec![]);
        // Object 2 removed, 3 and 4 shift down by one; 4's selection is left out.
        let moved = sel.moved(
            |f| (f != 4).then(|| if f > 2 { f - 1 } else { f }),
            |t| match t {
                2 => None,
                t if t > 2 => Some(t - 1),
                t => Some(t),
            },
        );
        let got: Vec<(usize, Vec<u32>, Vec<u32>)> = moved
            .list
            .iter()
            .map(|s| (s.from, moved.set(s.set).to_vec(), s.except.clone()))
            .collect();
        assert_eq!(got, vec![(0, vec![1, 2], vec![]), (2, vec![1, 2], vec![])]);
    }
}
