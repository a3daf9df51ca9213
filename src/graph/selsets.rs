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

use super::{Edge, EdgeKind};

/// One selector field of one object and what it matched.
#[derive(Clone, Debug)]
pub(super) struct Selection {
    /// The selecting object.
    pub from: usize,
    pub via: &'static str,
    /// The matched objects, ascending (shared between equal selectors).
    pub targets: Arc<[u32]>,
    /// Members of `targets` this selection does not select, ascending.
    pub except: Box<[u32]>,
}

impl Selection {
    /// A selection of `targets` but the objects of `except` (both ascending).
    pub fn new(from: usize, via: &'static str, targets: Arc<[u32]>, except: Vec<u32>) -> Self {
        Selection {
            from,
            via,
            targets,
            except: except.into_boxed_slice(),
        }
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
    sets: Vec<Arc<[u32]>>,
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

impl SelectorEdges {
    /// Indexes the selections of `n` objects. Selections are ordered by selecting object
    /// (stable: the order they were found in stays), selections matching nothing are
    /// dropped, and equal sets are merged, so equal selections give equal results whether
    /// they come from a build or a patch.
    pub fn build(n: usize, mut selections: Vec<Selection>) -> SelectorEdges {
        selections.sort_by_key(|s| s.from);
        selections.retain(|s| !s.targets.is_empty());
        let mut by_ptr: FxHashMap<usize, u32> = FxHashMap::default();
        let mut by_content: FxHashMap<Arc<[u32]>, u32> = FxHashMap::default();
        let mut sets: Vec<Arc<[u32]>> = Vec::new();
        let mut segs = Vec::with_capacity(selections.len());
        for s in selections {
            // The pointer first: hashing one shared set's contents once, not once per user.
            let ptr = s.targets.as_ptr() as usize;
            let set = match by_ptr.get(&ptr) {
                Some(&id) => id,
                None => {
                    let id = *by_content.entry(s.targets.clone()).or_insert_with(|| {
                        sets.push(s.targets.clone());
                        (sets.len() - 1) as u32
                    });
                    by_ptr.insert(ptr, id);
                    id
                }
            };
            segs.push(Seg {
                from: s.from as u32,
                via: s.via,
                set,
                except: s.except,
            });
        }
        drop(by_content);
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

    /// Every selection, as found (for a patch to carry over).
    pub fn selections(&self) -> impl Iterator<Item = Selection> + '_ {
        self.segs.iter().map(|seg| Selection {
            from: seg.from as usize,
            via: seg.via,
            targets: self.sets[seg.set as usize].clone(),
            except: seg.except.clone(),
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
    fn pairs(mut selections: Vec<Selection>) -> Vec<Edge> {
        selections.sort_by_key(|s| s.from);
        let mut out = Vec::new();
        for s in &selections {
            for &t in s.targets.iter() {
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

    /// Selections over `n` objects: sets drawn from a few shared ones and fresh copies of
    /// them (equal contents, other allocations), with exceptions and self-members.
    fn selections(n: usize, picks: &[(usize, usize, usize, u8)]) -> Vec<Selection> {
        let shared: Vec<Arc<[u32]>> = (0..3)
            .map(|k| (0..n as u32).filter(|t| (t + k) % (k + 2) == 0).collect())
            .collect();
        picks
            .iter()
            .map(|&(from, set, except, how)| {
                let targets = match how % 3 {
                    0 => shared[set % 3].clone(),
                    1 => Arc::from(shared[set % 3].to_vec()),
                    _ => Arc::from([(set % n) as u32]),
                };
                let except: Vec<u32> = targets
                    .iter()
                    .copied()
                    .filter(|t| *t as usize % 5 == except % 5)
                    .collect();
                let via = if how % 2 == 0 { "a" } else { "b" };
                Selection::new(from % n, via, targets, except)
            })
            .collect()
    }

    proptest! {
        #[test]
        fn sets_give_the_same_edges_as_pairs(
            picks in proptest::collection::vec((0usize..12, 0usize..12, 0usize..12, any::<u8>()), 0..24),
        ) {
            let n = 12;
            let sel = selections(n, &picks);
            let expected = pairs(sel.clone());
            let edges = SelectorEdges::build(n, sel);
            let selects: Vec<Edge> = (0..n).flat_map(|i| edges.selects(i)).collect();
            prop_assert_eq!(&selects, &expected);
            for t in 0..n {
                let by: Vec<Edge> = edges.selected_by(t).collect();
                let want: Vec<Edge> = expected.iter().filter(|e| e.to == t).copied().collect();
                prop_assert_eq!(by, want, "selected_by({})", t);
            }
            prop_assert!(edges.selects(n).next().is_none() && edges.selected_by(n).next().is_none());
        }
    }

    #[test]
    fn equal_sets_are_stored_once() {
        let set: Arc<[u32]> = Arc::from([1u32, 2, 3]);
        let copy: Arc<[u32]> = Arc::from(set.to_vec());
        let sel = vec![
            Selection::new(0, "a", set.clone(), vec![]),
            Selection::new(4, "a", copy, vec![2]),
            Selection::new(5, "b", set, vec![]),
            Selection::new(6, "b", Arc::from([]), vec![]),
        ];
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
}
